#include "format/projections/projections_reader.h"

#include <zlib.h>

#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "base/test_files.h"
#include "format/format_names.h"
#include "format/trace_reader.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Per location, the number of Enters of grain regions (entry methods).
std::vector<size_t> GrainEnters(const Trace& t) {
  std::vector<size_t> n;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const auto ev = t.events(LocationId(l));
    size_t k = 0;
    for (size_t i = 0; i < ev.size(); ++i)
      k += ev.kind[i] == EventKind::kEnter && t.region(RegionId(ev.arg[i])).role == RegionRole::kGrain;
    n.push_back(k);
  }
  return n;
}

std::string RegionNameAt(const Trace& t, LocationId loc, size_t i) {
  return std::string(t.str(t.region(RegionId(t.events(loc).arg[i])).name));
}

// Pipit's ping-pong test data: its tests assert 161 processing enters on PE 0 and 146 on PE 1,
// and that each PE's first and last event is Computation's. The message counts were computed
// from the logs by a separate script (creations and begins of processing paired by source PE
// and event number).
TEST(Projections, ReadsPipitsPingPong) {
  const std::string dir = std::string(GRAINSCOPE_CORPUS_DIR) + "/other-formats/pipit-pingpong-projections";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "corpus trace " << dir << " is absent (../shared/corpus)";
  Result<Trace> r = ReadTrace(dir);
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.format(), kProjectionsFormat);
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_THAT(GrainEnters(t), ElementsAre(161u, 146u));
  for (uint32_t l = 0; l < 2; ++l) {
    const auto ev = t.events(LocationId(l));
    EXPECT_EQ(RegionNameAt(t, LocationId(l), 0), "Computation");
    EXPECT_EQ(ev.kind.front(), EventKind::kEnter);
    EXPECT_EQ(RegionNameAt(t, LocationId(l), ev.size() - 1), "Computation");
    EXPECT_EQ(ev.time.front(), 77'991'000);  // "6 77991": microseconds
  }
  size_t matched = 0;
  for (uint32_t m = 0; m < t.messages().size(); ++m) matched += t.messages().matched(MessageId(m));
  EXPECT_EQ(matched, 285u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kReceivesWithoutSend), 22u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kSendsWithoutReceive), 34u);
}

constexpr char kSts[] =
    "PROJECTIONS_ID \nVERSION 11.0\nPROCESSORS {}\nTOTAL_CHARES 2\nCHARE 0 \"Main\" -1\nCHARE 1 \"Worker\" 1\n"
    "ENTRY CHARE 0 \"Main(CkArgMsg* m)\" 0 0\nENTRY CHARE 1 \"work(int n)\" 1 1\nENTRY CHARE 2 \"done()\" 0 0\n"
    "EVENT 5 Solve step\nEND\n";

// PE 0: Main broadcasts event 7 to both PEs' work(), runs its own, idles, runs done() for PE 1's
// message 9. A dequeue (not modelled) and a line that is no record.
constexpr char kPe0[] =
    "PROJECTIONS-RECORD 12\n6 100\n2 0 0 110 -1 0 64 0 0 105\n20 1 1 120 7 0 32 0 2\n3 0 0 130 -1 0 64 131\n"
    "2 1 1 140 7 0 32 0 3 135\n29 145 150 5 7 solve x\n3 1 1 160 7 0 32 162\n14 170 0\n15 200 0\n"
    "2 0 2 210 9 1 16 0 205\n3 0 2 215 9 1 16 216\n5 0 220 3 0\nthis is not a record\n7 300\n";

// PE 1: work() for the broadcast, a user event, message 9 to PE 0 and message 10 that no PE runs.
constexpr char kPe1[] =
    "PROJECTIONS-RECORD 8\n6 100\n2 1 1 150 7 0 32 0 4 145\n13 5 155 1 1\n1 0 2 160 9 1 16 0\n"
    "1 0 2 165 10 1 16 0\n3 1 1 170 7 0 32 171\n7 300\n";

void WriteGzip(const std::string& path, std::string_view text) {
  gzFile f = gzopen(path.c_str(), "wb");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ(gzwrite(f, text.data(), static_cast<unsigned>(text.size())), static_cast<int>(text.size()));
  gzclose(f);
}

void WriteRun(const TempDir& dir, int processors) {
  ASSERT_TRUE(WriteTestFile(dir / "run.sts", fmt::format(kSts, processors)));
  WriteGzip(dir / "run.0.log.gz", kPe0);
  ASSERT_TRUE(WriteTestFile(dir / "run.1.log", kPe1));  // a log written without gzip
}

TEST(Projections, EntryMethodsMessagesBroadcastsAndNotes) {
  TempDir dir("projections_small");
  WriteRun(dir, 2);
  Result<Trace> r = ReadTrace(dir / "run.sts");  // the .sts file names the run too
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(t.str(t.location(LocationId(1)).name), "PE 1");
  EXPECT_THAT(GrainEnters(t), ElementsAre(3u, 1u));
  const auto pe0 = t.events(LocationId(0));
  EXPECT_THAT(std::vector<EventKind>(pe0.kind.begin(), pe0.kind.end()),
              ElementsAre(EventKind::kEnter, EventKind::kEnter, EventKind::kSend, EventKind::kSend, EventKind::kLeave,
                          EventKind::kEnter, EventKind::kRecv, EventKind::kEnter, EventKind::kLeave, EventKind::kLeave,
                          EventKind::kEnter, EventKind::kLeave, EventKind::kEnter, EventKind::kRecv, EventKind::kLeave,
                          EventKind::kLeave));
  EXPECT_EQ(RegionNameAt(t, LocationId(0), 1), "Main::Main(CkArgMsg* m)");
  EXPECT_EQ(RegionNameAt(t, LocationId(0), 5), "Worker::work(int n)");
  EXPECT_EQ(RegionNameAt(t, LocationId(0), 7), "Solve step");  // the bracketed note, 145..150 us
  EXPECT_EQ(pe0.time[8], 150'000);
  EXPECT_EQ(RegionNameAt(t, LocationId(0), 10), "Idle");
  EXPECT_EQ(RegionNameAt(t, LocationId(0), 12), "Main::done()");
  // The broadcast: one message to each PE, both sent at its creation; PE 1's message 9 to done().
  ASSERT_EQ(t.messages().size(), 4u);
  std::vector<std::pair<uint32_t, uint32_t>> ends;
  const MessageTable& m = t.messages();
  for (size_t i = 0; i < m.size(); ++i)
    ends.emplace_back(m.send_event[i] == kNoEvent ? 99 : m.sender[i].value, m.recv_event[i] == kNoEvent ? 99 : m.receiver[i].value);
  EXPECT_THAT(ends, ::testing::UnorderedElementsAre(std::pair(0u, 0u), std::pair(0u, 1u), std::pair(1u, 0u),
                                                    std::pair(1u, 99u)));
  const auto pe1 = t.events(LocationId(1));
  EXPECT_EQ(pe1.kind[3], EventKind::kMarker);
  EXPECT_EQ(t.str(StringId(pe1.arg[3])), "Solve step");
  EXPECT_EQ(t.diagnostics().Count(Diag::kSendsWithoutReceive), 1u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kSkippedRecords), 1u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kInvalidRecords), 1u);
  EXPECT_THAT(std::string(t.diagnostics().entries().back().example), ::testing::Not(HasSubstr("\n")));
}

TEST(Projections, AMissingLogIsSaidAndTheOthersRead) {
  TempDir dir("projections_missing");
  WriteRun(dir, 3);
  Result<Trace> r = ReadTrace(dir / "run.sts");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->locations().size(), 2u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kMissingLocationFiles), 1u);
}

// A .sts file may claim any number of PEs: the logs are found by listing the directory.
TEST(Projections, AHugeProcessorCountIsMissingLogsNotALongLoop) {
  TempDir dir("projections_huge");
  WriteRun(dir, 2);
  ASSERT_TRUE(WriteTestFile(dir / "run.sts", fmt::format(kSts, "4000000000000000000")));
  Result<Trace> r = ReadTrace(dir / "run.sts");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->locations().size(), 2u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kMissingLocationFiles), 3999999999999999998u);
}

// traceUserBracketEvent writes kind 100 twice, at the begin and at the end: one region. Computation
// ends inside an entry method (Charm++'s shutdown): that method ends with it, said.
TEST(Projections, UserBracketEventsAreRegionsAndShutdownClosesWhatIsOpen) {
  TempDir dir("projections_pairs");
  WriteRun(dir, 2);
  ASSERT_TRUE(WriteTestFile(dir / "run.1.log", "6 100\n2 1 1 150 7 0 32 0 4 145\n100 5 155 3 1\n100 5 158 3 1\n7 300\n"));
  Result<Trace> r = ReadTrace(dir / "run.sts", "auto", ReadOptions{.strict = true});
  ASSERT_THAT(r, IsOk());
  const auto pe1 = r->events(LocationId(1));
  ASSERT_EQ(pe1.size(), 7u);
  EXPECT_EQ(RegionNameAt(*r, LocationId(1), 3), "Solve step");
  EXPECT_EQ(pe1.time[3], 155'000);
  EXPECT_EQ(pe1.time[4], 158'000);
  EXPECT_EQ(RegionNameAt(*r, LocationId(1), 5), "Worker::work(int n)");  // closed at 300 us, before Computation
  EXPECT_EQ(pe1.time[5], 300'000);
  EXPECT_EQ(r->diagnostics().Count(Diag::kUnclosedRegions), 1u);
}

TEST(Projections, ATruncatedLogKeepsItsWholeRecords) {
  TempDir dir("projections_truncated");
  WriteRun(dir, 2);
  const std::string gz = dir / "run.0.log.gz";
  std::filesystem::resize_file(gz, std::filesystem::file_size(gz) - 12);  // its checksum and last bytes
  Result<Trace> r = ReadTrace(dir / "run.sts");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->diagnostics().Count(Diag::kFileTruncated), 1u);
  EXPECT_GE(r->events(LocationId(0)).size(), 2u);
}

TEST(Projections, TwoRunsInOneDirectoryAreNotMerged) {
  TempDir dir("projections_two_runs");
  WriteRun(dir, 2);
  ASSERT_TRUE(WriteTestFile(dir / "other.sts", fmt::format(kSts, 2)));
  EXPECT_THAT(ReadTrace(dir / ""), StatusIs(StatusCode::kInvalidArgument, HasSubstr("runs are never merged")));
  EXPECT_THAT(ReadTrace(dir / "other.sts"), StatusIs(StatusCode::kNotFound, HasSubstr("none of the 2 PE logs")));
}

TEST(Projections, ADamagedStsNamesItsLine) {
  TempDir dir("projections_bad_sts");
  WriteRun(dir, 2);
  ASSERT_TRUE(WriteTestFile(dir / "run.sts", "PROJECTIONS_ID\nPROCESSORS 2\nENTRY CHARE x \"f\" 0 0\n"));
  EXPECT_THAT(ReadTrace(dir / "run.sts"), StatusIs(StatusCode::kDataLoss, HasSubstr("run.sts:3: expected the fields of a ENTRY line")));
}

}  // namespace
}  // namespace grainscope
