// Scheduler quality and speed (issue 9's targets), printed as one JSON object:
//   * STG (../shared/corpus/stg/50, 180 graphs of 50 tasks) for p = 2, 4, 8, 16 against
//     stg/optimal/Case50_{p}_OPT.csv: per heuristic the mean and largest gap to the reference
//     (the proven optimum, or the best known value of rows that carry a lower bound and a best
//     known value), the fraction of graphs solved optimally (the proven optimum reached, or
//     optimality proven by our exact search), and the time per graph; for the exact search also
//     how many graphs it proves. "best" is the portfolio exactly as `grainscope schedule` runs it.
//   * the graphs with communication (taskgraphs-with-comm): the exact search against the known
//     optima.
//   * HEFT on a random graph of 10,000 tasks and 50,000 edges for p = 64 (target: < 1 s).
// Every schedule is checked with ValidateSchedule; an invalid one makes the exit status 1.
//
//   schedule_bench [--smoke] [--corpus DIR] [--graphs N] [--node-limit N]
// --smoke: 4 STG graphs, the comm graphs, HEFT on 1,000 tasks (seconds, for CI).
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file.h"
#include "bench/synthetic/random_dag.h"
#include "schedule/io/graph_input.h"
#include "schedule/io/readers.h"
#include "schedule/portfolio.h"

namespace grainscope {
namespace {

using Json = nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;

double Since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

struct Options {
  bool smoke = false;
  std::string corpus = GRAINSCOPE_CORPUS_DIR;
  size_t graphs = 0;  // 0: all
  uint64_t node_limit = 200'000;
};

struct Reference {
  int64_t lower = 0, best_known = 0;
  bool proven = false;
};

// `50/rand0000.stg,2,131` (proven optimum) or `50/rand0060.stg,2,157,165` (lower bound, best known).
std::map<std::string, Reference> ReadReferences(const std::string& path) {
  std::map<std::string, Reference> out;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line)) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, ',');) cells.push_back(c);
    if (cells.size() < 3) continue;
    const std::string name = std::filesystem::path(cells[0]).filename().string();
    Reference r;
    r.lower = std::stoll(cells[2]);
    r.best_known = cells.size() > 3 ? std::stoll(cells[3]) : r.lower;
    r.proven = cells.size() == 3;
    out[name] = r;
  }
  return out;
}

struct Tally {
  double gap_sum = 0, gap_max = 0, seconds = 0;
  int optimal = 0, proven = 0, graphs = 0;
  uint64_t nodes = 0;

  void Add(const Schedule& s, const Reference& r, double secs) {
    const double gap = 100.0 * static_cast<double>(s.makespan - r.best_known) / static_cast<double>(r.best_known);
    gap_sum += gap;
    gap_max = std::max(gap_max, gap);
    seconds += secs;
    ++graphs;
    optimal += (r.proven && s.makespan == r.best_known) || (s.optimal && s.makespan <= r.best_known);
    proven += s.optimal;
    nodes += s.search_nodes;
  }
  Json ToJson(bool search) const {
    Json j;
    j["mean_gap_pct"] = graphs ? gap_sum / graphs : 0.0;
    j["max_gap_pct"] = gap_max;
    j["optimal_pct"] = graphs ? 100.0 * optimal / graphs : 0.0;
    j["proven_optimal"] = proven;
    j["ms_per_graph"] = graphs ? 1000.0 * seconds / graphs : 0.0;
    if (search) j["mean_search_nodes"] = graphs ? static_cast<double>(nodes) / graphs : 0.0;
    return j;
  }
};

int invalid_schedules = 0;

void Check(const TaskDag& g, const Machine& m, const Schedule& s, const std::string& what) {
  Status v = ValidateSchedule(g, m, s);
  if (!v.ok()) {
    ++invalid_schedules;
    std::fprintf(stderr, "schedule_bench: invalid %s schedule of %s: %s\n", s.heuristic.c_str(), what.c_str(),
                 v.message().c_str());
  }
}

using NamedDags = std::vector<std::pair<std::string, TaskDag>>;

// The STG graphs of 50 tasks in file-name order, the first o.graphs of them (0: all); one that
// cannot be read is left out after a message.
NamedDags ReadStgGraphs(const Options& o) {
  const std::string dir = o.corpus + "/stg/50";
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.path().extension() == ".stg") files.push_back(e.path().filename().string());
  std::sort(files.begin(), files.end());
  if (o.graphs > 0 && files.size() > o.graphs) files.resize(o.graphs);
  NamedDags graphs;
  for (const std::string& f : files) {
    Result<std::string> content = ReadFile(dir + "/" + f);
    Result<TaskDag> g = content.ok() ? ReadStg(*content, f) : Result<TaskDag>(content.status());
    if (!g.ok()) {
      std::fprintf(stderr, "schedule_bench: %s\n", g.status().message().c_str());
      continue;
    }
    graphs.emplace_back(f, std::move(g).value());
  }
  return graphs;
}

// In report order; the five list heuristics come first (best_of_five_heuristics is the best of
// them), "best" is the portfolio as `grainscope schedule` runs it.
constexpr std::array kStgHeuristics = {Heuristic::kHlfet, Heuristic::kEtf, Heuristic::kMcp, Heuristic::kHeft,
                                       Heuristic::kDsc, Heuristic::kBest, Heuristic::kExact};

// Every heuristic on one graph, each schedule checked and judged against the graph's reference
// row into `tally`; the best of the five list heuristics into `best_of_five`. A failed schedule,
// or one that contradicts the reference (shorter than its lower bound, or proven optimal at
// another length), counts as invalid.
void ScheduleStgGraph(const std::string& name, const TaskDag& g, const Machine& m, const Reference& ref,
                      const Options& o, std::map<Heuristic, Tally>& tally, Tally& best_of_five) {
  PortfolioOptions po;
  po.exact.node_limit = o.node_limit;
  Schedule five;
  for (Heuristic h : kStgHeuristics) {
    const Clock::time_point t0 = Clock::now();
    Result<Schedule> s = RunHeuristic(g, m, h, po);
    const double secs = Since(t0);
    if (!s.ok()) {
      std::fprintf(stderr, "schedule_bench: %s: %s\n", name.c_str(), s.status().message().c_str());
      ++invalid_schedules;
      continue;
    }
    Check(g, m, *s, name);
    if (s->makespan < ref.lower || (s->optimal && ref.proven && s->makespan != ref.lower)) {
      std::fprintf(stderr, "schedule_bench: %s p=%u: %s makespan %lld contradicts the reference %lld\n",
                   name.c_str(), m.processors, s->heuristic.c_str(), static_cast<long long>(s->makespan),
                   static_cast<long long>(ref.lower));
      ++invalid_schedules;
    }
    tally[h].Add(*s, ref, secs);
    if (h <= Heuristic::kDsc && (five.slots.empty() || s->makespan < five.makespan)) five = *s;
  }
  five.optimal = false;  // judged against the reference only
  best_of_five.Add(five, ref, 0);
}

// The graphs on `p` processors: per heuristic its tally against the graphs' reference rows (a
// graph without one is left out).
Json StgOnProcessors(const Options& o, const NamedDags& graphs, uint32_t p) {
  const std::map<std::string, Reference> refs =
      ReadReferences(o.corpus + "/stg/optimal/Case50_" + std::to_string(p) + "_OPT.csv");
  std::map<Heuristic, Tally> tally;
  Tally best_of_five;
  int unproven_rows = 0;
  Machine m;
  m.processors = p;
  for (const auto& [name, g] : graphs) {
    auto ref = refs.find(name);
    if (ref == refs.end()) continue;
    unproven_rows += !ref->second.proven;
    ScheduleStgGraph(name, g, m, ref->second, o, tally, best_of_five);
  }
  Json pj;
  pj["processors"] = p;
  pj["reference_rows_not_proven"] = unproven_rows;
  Json hj;
  for (Heuristic h : kStgHeuristics) hj[std::string(HeuristicName(h))] = tally[h].ToJson(h >= Heuristic::kExact);
  hj["best_of_five_heuristics"] = best_of_five.ToJson(false);
  pj["heuristics"] = std::move(hj);
  return pj;
}

Json StgBenchmark(const Options& o) {
  const NamedDags graphs = ReadStgGraphs(o);
  Json out;
  out["graphs"] = graphs.size();
  out["exact_node_limit"] = o.node_limit;
  Json per_p = Json::array();
  const std::vector<uint32_t> processors = o.smoke ? std::vector<uint32_t>{2, 4} : std::vector<uint32_t>{2, 4, 8, 16};
  for (uint32_t p : processors) per_p.push_back(StgOnProcessors(o, graphs, p));
  out["by_processors"] = std::move(per_p);
  return out;
}

Json CommBenchmark(const Options& o) {
  struct Known {
    const char* file;
    uint32_t p;
    int64_t optimum;
  };
  Json out = Json::array();
  for (const Known& k : {Known{"Nodes_7_OutTree.dot", 1, 40}, Known{"Nodes_7_OutTree.dot", 2, 28},
                         Known{"Nodes_7_OutTree.dot", 4, 22}, Known{"Nodes_10_Random.dot", 1, 63},
                         Known{"Nodes_10_Random.dot", 2, 50}, Known{"Nodes_10_Random.dot", 4, 50}}) {
    Result<GraphInput> in = ReadGraphInput(o.corpus + "/taskgraphs-with-comm/" + k.file);
    if (!in.ok()) {
      std::fprintf(stderr, "schedule_bench: %s\n", in.status().message().c_str());
      ++invalid_schedules;
      continue;
    }
    Machine m;
    m.processors = k.p;
    Json j;
    j["graph"] = k.file;
    j["processors"] = k.p;
    j["known_optimum"] = k.optimum;
    for (Heuristic h : {Heuristic::kHlfet, Heuristic::kEtf, Heuristic::kMcp, Heuristic::kHeft, Heuristic::kDsc,
                        Heuristic::kExact}) {
      const Clock::time_point t0 = Clock::now();
      Result<Schedule> s = RunHeuristic(in->dag, m, h, PortfolioOptions{});
      const double secs = Since(t0);
      if (!s.ok()) continue;
      Check(in->dag, m, *s, k.file);
      j[std::string(HeuristicName(h))] = s->makespan;
      if (h == Heuristic::kExact) {
        j["exact_proven"] = s->optimal;
        j["exact_nodes"] = s->search_nodes;
        j["exact_ms"] = 1000.0 * secs;
        if (s->makespan != k.optimum || !s->optimal) ++invalid_schedules;
      }
    }
    out.push_back(std::move(j));
  }
  return out;
}

Json HeftSpeed(const Options& o) {
  RandomDagOptions r;
  if (o.smoke) {
    r.tasks = 1000;
    r.edges = 5000;
  }
  const Clock::time_point t0 = Clock::now();
  Result<TaskDag> g = GenerateRandomDag(r);
  const double build = Since(t0);
  Json j;
  if (!g.ok()) {
    ++invalid_schedules;
    return j;
  }
  Machine m;
  m.processors = 64;
  std::vector<double> runs;
  Schedule s;
  for (int i = 0; i < (o.smoke ? 1 : 3); ++i) {
    const Clock::time_point t1 = Clock::now();
    s = ScheduleHeft(*g, m);
    runs.push_back(Since(t1));
  }
  Check(*g, m, s, "the random graph");
  std::sort(runs.begin(), runs.end());
  j["tasks"] = g->size();
  j["edges"] = g->edge_count();
  j["processors"] = m.processors;
  j["graph_build_s"] = build;
  j["heft_s"] = runs[runs.size() / 2];
  j["makespan"] = s.makespan;
  j["lower_bound"] = s.lower_bound;
  return j;
}

}  // namespace
}  // namespace grainscope

int main(int argc, char** argv) {
  using namespace grainscope;
  Options o;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      o.smoke = true;
    } else if (std::strcmp(argv[i], "--corpus") == 0 && i + 1 < argc) {
      o.corpus = argv[++i];
    } else if (std::strcmp(argv[i], "--graphs") == 0 && i + 1 < argc) {
      o.graphs = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::strcmp(argv[i], "--node-limit") == 0 && i + 1 < argc) {
      o.node_limit = std::strtoull(argv[++i], nullptr, 10);
    } else {
      std::fprintf(stderr, "usage: schedule_bench [--smoke] [--corpus DIR] [--graphs N] [--node-limit N]\n");
      return 2;
    }
  }
  if (o.smoke) {
    if (o.graphs == 0) o.graphs = 4;
    o.node_limit = std::min<uint64_t>(o.node_limit, 20'000);
  }
  Json j;
  j["bench"] = "schedule";
  j["smoke"] = o.smoke;
  if (std::filesystem::is_directory(o.corpus)) {
    j["stg"] = StgBenchmark(o);
    j["comm"] = CommBenchmark(o);
  } else {
    std::fprintf(stderr, "schedule_bench: corpus not found at %s: STG and comm benchmarks skipped\n", o.corpus.c_str());
  }
  j["heft_speed"] = HeftSpeed(o);
  std::printf("%s\n", j.dump(2).c_str());
  return invalid_schedules == 0 ? 0 : 1;
}
