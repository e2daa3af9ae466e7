// The scheduler on real task graphs of ../shared/corpus (skipped with a message when absent):
// the known optima of the graphs with communication, and a handful of STG graphs against their
// published optima (the full STG evaluation is bench/schedule_bench).
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/io/graph_input.h"
#include "schedule/portfolio.h"

namespace grainscope {
namespace {

const std::string kCorpus = GRAINSCOPE_CORPUS_DIR;

#define SKIP_WITHOUT_CORPUS()                                                                      \
  do {                                                                                             \
    if (!std::filesystem::is_directory(kCorpus))                                                   \
      GTEST_SKIP() << "corpus not found at " << kCorpus << " (../shared/corpus): skipped";         \
  } while (0)

Machine Processors(uint32_t p) {
  Machine m;
  m.processors = p;
  return m;
}

struct KnownOptimum {
  const char* file;
  uint32_t processors;
  int64_t makespan;
};

TEST(Corpus, ExactSearchFindsTheKnownOptimaWithCommunication) {
  SKIP_WITHOUT_CORPUS();
  for (const KnownOptimum& k : {KnownOptimum{"Nodes_7_OutTree.dot", 1, 40}, KnownOptimum{"Nodes_7_OutTree.dot", 2, 28},
                                KnownOptimum{"Nodes_7_OutTree.dot", 4, 22}, KnownOptimum{"Nodes_10_Random.dot", 1, 63},
                                KnownOptimum{"Nodes_10_Random.dot", 2, 50}, KnownOptimum{"Nodes_10_Random.dot", 4, 50}}) {
    Result<GraphInput> in = ReadGraphInput(kCorpus + "/taskgraphs-with-comm/" + k.file);
    ASSERT_THAT(in, IsOk());
    Result<Schedule> s = RunHeuristic(in->dag, Processors(k.processors), Heuristic::kExact, PortfolioOptions{});
    ASSERT_THAT(s, IsOk());
    EXPECT_EQ(s->makespan, k.makespan) << k.file << " on " << k.processors;
    EXPECT_TRUE(s->optimal) << k.file << " on " << k.processors;
    EXPECT_THAT(ValidateSchedule(in->dag, Processors(k.processors), *s), IsOk());
  }
}

// Rows of Case50_{p}_OPT.csv: `50/randNNNN.stg,p,optimum` (two values: lower bound, best known).
std::map<std::string, int64_t> ProvenOptima(uint32_t p) {
  std::map<std::string, int64_t> out;
  std::ifstream f(kCorpus + "/stg/optimal/Case50_" + std::to_string(p) + "_OPT.csv");
  std::string line;
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (cells.size() == 3) out[cells[0].substr(3)] = std::stoll(cells[2]);
  }
  return out;
}

TEST(Corpus, StgGraphsNeverBelowTheOptimumAndOftenAtIt) {
  SKIP_WITHOUT_CORPUS();
  int at_optimum = 0, checked = 0;
  for (uint32_t p : {2u, 4u, 8u, 16u}) {
    const std::map<std::string, int64_t> optima = ProvenOptima(p);
    for (const char* file : {"rand0000.stg", "rand0001.stg", "rand0002.stg"}) {
      Result<GraphInput> in = ReadGraphInput(kCorpus + "/stg/50/" + file);
      ASSERT_THAT(in, IsOk());
      ASSERT_EQ(in->dag.size(), 50u);
      Result<Schedule> s = RunHeuristic(in->dag, Processors(p), Heuristic::kBest, PortfolioOptions{});
      ASSERT_THAT(s, IsOk());
      EXPECT_THAT(ValidateSchedule(in->dag, Processors(p), *s), IsOk());
      auto opt = optima.find(file);
      if (opt == optima.end()) continue;
      ++checked;
      EXPECT_GE(s->makespan, opt->second) << file << " p=" << p;
      EXPECT_LE(s->makespan, opt->second * 103 / 100) << file << " p=" << p;
      if (s->optimal) {
        EXPECT_EQ(s->makespan, opt->second) << file << " p=" << p;
      }
      at_optimum += s->makespan == opt->second;
    }
  }
  EXPECT_GE(at_optimum * 4, checked * 3) << at_optimum << " of " << checked << " at the optimum";
}

}  // namespace
}  // namespace grainscope
