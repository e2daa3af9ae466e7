// A PyTorch profiler job written as one Chrome JSON file per rank is read as one trace.
#include "format/chrome/chrome_rank_dir.h"

#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "base/test_files.h"
#include "format/format_names.h"
#include "format/trace_reader.h"
#include "model/exact_dump_test_util.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string ExampleOf(const Trace& t, std::string_view name) {
  for (const Diagnostic& d : t.diagnostics().entries())
    if (d.name == name) return d.example;
  return "";
}

std::string MetadataOf(const Trace& t, std::string_view key) {
  for (const MetadataEntry& m : t.metadata())
    if (t.str(m.key) == key) return std::string(t.str(m.value));
  return "";
}

// One rank's file: a CPU thread with a step, a GPU stream with a kernel launched from it (an
// "ac2g" flow with the same id in every file), Unix-epoch microseconds.
std::string RankFile(int rank, int world_size, int64_t start_us, std::string_view backend = "nccl") {
  return fmt::format(R"({{"schemaVersion": 1,
  "distributedInfo": {{"backend": "{}", "rank": {}, "world_size": {}}},
  "traceEvents": [
    {{"ph":"M","name":"process_name","pid":{},"tid":0,"args":{{"name":"python"}}}},
    {{"ph":"X","name":"ProfilerStep#1","cat":"user_annotation","pid":{},"tid":{},"ts":{},"dur":100}},
    {{"ph":"X","name":"cudaLaunchKernel","cat":"cuda_runtime","pid":{},"tid":{},"ts":{},"dur":5}},
    {{"ph":"s","name":"ac2g","cat":"ac2g","id":7,"pid":{},"tid":{},"ts":{}}},
    {{"ph":"X","name":"ncclKernel_AllReduce","cat":"kernel","pid":0,"tid":7,"ts":{},"dur":50}},
    {{"ph":"f","bp":"e","name":"ac2g","cat":"ac2g","id":7,"pid":0,"tid":7,"ts":{}}}
  ]}})",
                     backend, rank, world_size, 4000 + rank, 4000 + rank, 4000 + rank, start_us, 4000 + rank,
                     4000 + rank, start_us + 10, 4000 + rank, 4000 + rank, start_us + 10, start_us + 20, start_us + 20);
}

TEST(ChromeRankDirectory, IsOneTraceInRankOrderNamingMissingRanks) {
  TempDir dir("chrome_ranks");
  const int64_t t0 = 1682725897226747;
  ASSERT_TRUE(WriteTestFile(dir / "rank-1.json", RankFile(1, 4, t0 + 3)));
  ASSERT_TRUE(WriteTestFile(dir / "rank-0.json", RankFile(0, 4, t0)));
  const std::string path = std::filesystem::path(dir / "rank-0.json").parent_path().string();
  EXPECT_TRUE(LooksLikeChromeRankDirectory(path));
  Result<Trace> r = ReadTrace(path, "auto");
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.format(), kChromeRanksFormat);
  std::vector<std::string> names;
  for (const Location& l : t.locations()) names.push_back(std::string(t.str(l.name)));
  EXPECT_THAT(names, ElementsAre("rank 0 python", "rank 0 pid 0 tid 7", "rank 1 python", "rank 1 pid 0 tid 7"));
  EXPECT_EQ(t.location(LocationId(1)).kind, LocationKind::kGpuStream);
  // One clock: rank 1 starts 3 us after rank 0, the trace at rank 0's first event.
  EXPECT_EQ(t.origin_ns(), t0 * 1000);
  EXPECT_EQ(t.events(LocationId(0)).time[0], t0 * 1000);
  EXPECT_EQ(t.events(LocationId(2)).time[0], (t0 + 3) * 1000);
  // Regions are shared; flow ids are each file's own: two launches, each within its rank.
  EXPECT_EQ(t.regions().size(), 3u);
  ASSERT_EQ(t.dependencies().size(), 2u);
  EXPECT_EQ(t.dependencies().from_location[0], LocationId(0));
  EXPECT_EQ(t.dependencies().to_location[0], LocationId(1));
  EXPECT_EQ(t.dependencies().from_location[1], LocationId(2));
  EXPECT_EQ(t.dependencies().to_location[1], LocationId(3));
  EXPECT_EQ(t.diagnostics().Count(Diag::kMissingRankFiles), 2u);
  EXPECT_THAT(ExampleOf(t, "missing_rank_files"), HasSubstr("ranks 2..3 of the job's 4"));
  EXPECT_EQ(MetadataOf(t, "distributed.world_size"), "4");
  // --strict refuses a job with ranks missing.
  Result<Trace> strict = ReadTrace(path, "auto", ReadOptions{.strict = true});
  EXPECT_THAT(strict.status().message(), HasSubstr("ranks 2..3 have no file"));
}

TEST(ChromeRankDirectory, MergesOneRunOnly) {
  TempDir dir("chrome_ranks_runs");
  const int64_t t0 = 1682725897226747;
  ASSERT_TRUE(WriteTestFile(dir / "a-rank0.json", RankFile(0, 2, t0)));
  ASSERT_TRUE(WriteTestFile(dir / "b-rank1.json", RankFile(1, 2, t0)));
  ASSERT_TRUE(WriteTestFile(dir / "c-rank1.json", RankFile(1, 2, t0 + 1000)));     // rank 1 again
  ASSERT_TRUE(WriteTestFile(dir / "d-rank1.json", RankFile(1, 8, t0)));            // another job's size
  ASSERT_TRUE(WriteTestFile(dir / "e-rank1.json", RankFile(1, 2, t0, "gloo")));    // another backend
  ASSERT_TRUE(WriteTestFile(dir / "f.json", R"({"traceEvents": []})"));           // names no rank
  ASSERT_TRUE(WriteTestFile(dir / "g.json", R"({"distributedInfo": {"rank": 3}, )"));  // cut short
  const std::string path = std::filesystem::path(dir / "f.json").parent_path().string();
  Result<Trace> r = ReadTrace(path, kChromeRanksFormat);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->locations().size(), 4u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kOtherRunFiles), 3u);
  EXPECT_THAT(ExampleOf(*r, "other_run_files"), HasSubstr("c-rank1.json: holds rank 1 again"));
  EXPECT_EQ(r->diagnostics().Count(Diag::kUnreadableRankFiles), 2u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kMissingRankFiles), 0u);
}

// The files are parsed one per task: the trace is the same on any number of threads, unreadable
// files and other runs included.
TEST(ChromeRankDirectory, IsTheSameOnAnyNumberOfThreads) {
  TempDir dir("chrome_ranks_threads");
  const int64_t t0 = 1682725897226747;
  for (int r = 0; r < 6; ++r) ASSERT_TRUE(WriteTestFile(dir / fmt::format("rank-{}.json", r), RankFile(r, 8, t0 + 7 * r)));
  ASSERT_TRUE(WriteTestFile(dir / "rank-6-again.json", RankFile(5, 8, t0)));
  ASSERT_TRUE(WriteTestFile(dir / "rank-7.json", R"({"distributedInfo": {"rank": 7}, )"));  // cut short
  const std::string path = std::filesystem::path(dir / "rank-0.json").parent_path().string();
  Result<Trace> one = ReadTrace(path, kChromeRanksFormat, ReadOptions{.threads = 1});
  ASSERT_THAT(one, IsOk());
  EXPECT_EQ(one->locations().size(), 12u);
  for (unsigned threads : {2u, 4u, 16u}) {
    Result<Trace> many = ReadTrace(path, kChromeRanksFormat, ReadOptions{.threads = threads});
    ASSERT_THAT(many, IsOk());
    EXPECT_EQ(testing_util::ExactDump(*many), testing_util::ExactDump(*one)) << threads << " threads";
  }
}

// Each file is read as a part of its own and merged once (model/trace_parts.h): a file that
// cannot be made a trace is left out, not the directory; what a file's reader counted names that
// file; regions are (name, category) across files.
TEST(ChromeRankDirectory, EachFileIsAPartOfItsOwn) {
  TempDir dir("chrome_ranks_parts");
  const int64_t t0 = 1682725897226747;
  ASSERT_TRUE(WriteTestFile(dir / "rank-0.json", RankFile(0, 3, t0)));
  ASSERT_TRUE(WriteTestFile(dir / "rank-1.json", R"({"distributedInfo": {"rank": 1, "world_size": 3}, "traceEvents": 5})"));
  // Rank 2: a "cpu_op" named like rank 0's user annotation, and an "E" without its "B".
  ASSERT_TRUE(WriteTestFile(dir / "rank-2.json", R"({"distributedInfo": {"backend": "nccl", "rank": 2, "world_size": 3},
    "traceEvents": [{"ph":"X","name":"ProfilerStep#1","cat":"cpu_op","pid":1,"tid":1,"ts":1682725897226747,"dur":9},
                    {"ph":"E","pid":1,"tid":1,"ts":1682725897226760}]})"));
  const std::string path = std::filesystem::path(dir / "rank-0.json").parent_path().string();
  Result<Trace> r = ReadTrace(path, kChromeRanksFormat);
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.diagnostics().Count(Diag::kUnreadableRankFiles), 1u);
  EXPECT_THAT(ExampleOf(t, "unreadable_rank_files"), HasSubstr("rank-1.json: expected a JSON array of trace events"));
  EXPECT_EQ(t.diagnostics().Count(Diag::kMissingRankFiles), 1u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kStrayEvents), 1u);
  EXPECT_THAT(ExampleOf(t, "stray_events"), HasSubstr("rank-2.json: "));
  ASSERT_EQ(t.locations().size(), 3u);
  EXPECT_EQ(t.str(t.location(LocationId(2)).name), "rank 2 pid 1 tid 1");
  EXPECT_EQ(t.regions().size(), 4u);  // rank 0's three, and rank 2's "cpu_op" step
  EXPECT_EQ(t.str(t.region(RegionId(3)).name), "ProfilerStep#1");
}

TEST(ChromeRankDirectory, OtherDirectoriesAreNotRankDirectories) {
  TempDir dir("chrome_ranks_not");
  ASSERT_TRUE(WriteTestFile(dir / "trace.json", R"({"traceEvents": []})"));
  const std::string path = std::filesystem::path(dir / "trace.json").parent_path().string();
  EXPECT_FALSE(LooksLikeChromeRankDirectory(path));
  EXPECT_FALSE(LooksLikeChromeRankDirectory(dir / "trace.json"));
  Result<Trace> r = ReadTrace(path, "auto");
  EXPECT_THAT(r.status().message(), HasSubstr("a directory of *.json files naming their rank"));
  // Named explicitly, a directory of files naming no rank says what is missing.
  Result<Trace> named = ReadTrace(path, kChromeRanksFormat);
  EXPECT_THAT(named.status().message(), HasSubstr("names no rank"));
}

}  // namespace
}  // namespace grainscope
