#include "format/otf2/otf2_reader.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/progress.h"
#include "base/status_matchers.h"
#include "format/trace_reader.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;

// The corpus (../shared/corpus beside the project) holds real Score-P traces; absent elsewhere.
std::string CorpusTrace(std::string_view name) {
  return std::string(GRAINSCOPE_CORPUS_DIR) + "/pipit/" + std::string(name) + "/traces.otf2";
}
#define SKIP_WITHOUT(path)                                                            \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus trace " << (path)      \
                                                   << " is absent (../shared/corpus)"

struct Direction {
  uint64_t messages = 0;
  uint64_t bytes = 0;
};

// Messages and bytes per (sender rank -> receiver rank), matched ones only.
std::map<std::pair<int64_t, int64_t>, Direction> Traffic(const Trace& t) {
  std::map<std::pair<int64_t, int64_t>, Direction> out;
  const MessageTable& m = t.messages();
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (!m.matched(MessageId(i))) continue;
    Direction& d = out[{t.location(m.sender[i]).external_id, t.location(m.receiver[i]).external_id}];
    d.messages++;
    d.bytes += m.bytes[i];
  }
  return out;
}

void ExpectPingPongFacts(const Trace& t) {
  ASSERT_EQ(t.locations().size(), 2u);
  for (uint32_t l = 0; l < 2; ++l) {
    EXPECT_EQ(t.location(LocationId(l)).kind, LocationKind::kRank);
    EXPECT_EQ(t.location(LocationId(l)).external_id, l);
  }
  EXPECT_EQ(t.str(t.location(LocationId(0)).name), "MPI Rank 0");
  auto traffic = Traffic(t);
  ASSERT_EQ(traffic.size(), 2u);
  EXPECT_EQ((traffic[{0, 1}].messages), 8u);
  EXPECT_EQ((traffic[{0, 1}].bytes), 4'177'920u);
  EXPECT_EQ((traffic[{1, 0}].messages), 8u);
  EXPECT_EQ((traffic[{1, 0}].bytes), 4'177'920u);
  EXPECT_EQ(t.messages().size(), 16u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kSendsWithoutReceive), 0u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kReceivesWithoutSend), 0u);
  EXPECT_EQ(t.collectives().size(), 0u);
  ASSERT_EQ(t.communicators().size(), 2u);  // and MPI_COMM_SELF, made per location once used
  EXPECT_EQ(t.str(t.communicators()[1].name), "MPI_COMM_WORLD");
  // 60 records per location: 2 program begin/end, 50 enter/leave, 8 send/recv; the program
  // records only set the origin.
  EXPECT_EQ(t.events(LocationId(0)).size(), 58u);
  EXPECT_EQ(t.events(LocationId(1)).size(), 58u);
}

TEST(Otf2Reader, PingPongCorpusTrace) {
  const std::string path = CorpusTrace("ping-pong-otf2");
  SKIP_WITHOUT(path);
  Result<Trace> r = ReadOtf2(path);
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.format(), "otf2");
  ExpectPingPongFacts(t);
  EXPECT_EQ(t.diagnostics().Count(Diag::kSkippedRecords), 0u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kIgnoredAttributes), 2u);  // ProcessId on ProgramBegin
  // Ticks at 2,095,197,216 per second; the origin is the clock's global offset, which is the
  // first ProgramBegin: 7397466976977800 ticks = 3530678124468164.4 ns.
  EXPECT_EQ(t.origin_ns(), 3'530'678'124'468'164);
  EXPECT_EQ(t.start_ns() - t.origin_ns(), 30'083);  // rank 1 enters main 63,030 ticks later
  const Region& main = t.region(RegionId(t.events(LocationId(0)).arg[0]));
  EXPECT_EQ(t.str(main.name), "int main(int, char**)");
  EXPECT_EQ(main.role, RegionRole::kFunction);
  // Rank 0 enters main, MPI_Init, MPI_Comm_size, MPI_Comm_rank, then MPI_Send and sends.
  const Region& send = t.region(RegionId(t.events(LocationId(0)).arg[7]));
  EXPECT_EQ(t.str(send.name), "MPI_Send");
  EXPECT_EQ(send.role, RegionRole::kPointToPoint);
  EXPECT_EQ(t.events(LocationId(0)).kind[8], EventKind::kSend);
  for (const Region& r : t.regions()) {
    if (t.str(r.name) == "MPI_Wait" || t.str(r.name) == "MPI_Testall") {
      EXPECT_EQ(r.role, RegionRole::kWait);
    }
    const std::string_view name = t.str(r.name);
    if (name == "MPI_Bcast" || name == "MPI_Barrier" || name == "MPI_Init") {
      const RegionRole want = name == "MPI_Bcast"     ? RegionRole::kCollective
                              : name == "MPI_Barrier" ? RegionRole::kBarrier
                                                      : RegionRole::kInitFinalize;
      EXPECT_EQ(r.role, want) << name;
    }
  }
}

TEST(Otf2Reader, PapiCorpusTraceSkipsMetricRecords) {
  const std::string path = CorpusTrace("ping-pong-otf2-papi");
  SKIP_WITHOUT(path);
  Result<Trace> r = ReadOtf2(path);
  ASSERT_THAT(r, IsOk());
  ExpectPingPongFacts(*r);
  EXPECT_EQ(r->diagnostics().Count(Diag::kSkippedRecords), 84u);
  for (const Diagnostic& d : r->diagnostics().entries()) {
    if (d.name == "skipped_records") {
      EXPECT_THAT(d.example, HasSubstr("84 Metric (first on 'MPI Rank 0' at "));
    }
  }
}

std::string RealTrace(std::string_view folder) {
  return std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/" + std::string(folder) + "/traces.otf2";
}

// 72,584 Metric records on 29 metric-only locations (corpus README) and 4 ParameterUnsignedInt
// records the reader does not model: every one is counted, not only those on analysed locations.
TEST(Otf2Reader, MetricOnlyLocationsRecordsAreCountedAsSkipped) {
  const std::string path = RealTrace("fastotf2-mi300");
  SKIP_WITHOUT(path);
  Result<Trace> r = ReadOtf2(path);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->diagnostics().Count(Diag::kSkippedLocations), 29u);
  EXPECT_EQ(r->diagnostics().Count(Diag::kSkippedRecords), 72'584u + 4u);
}

// Score-P numbers a rank's OpenMP threads 1..3 in every rank: as ids they would repeat 8 times.
TEST(Otf2Reader, HybridTraceLocationIdsAreUnique) {
  const std::string path = RealTrace("npb-btmz-B-8x4");
  SKIP_WITHOUT(path);
  Result<Trace> r = ReadOtf2(path);
  ASSERT_THAT(r, IsOk());
  std::set<int64_t> ids;
  for (const Location& l : r->locations()) ids.insert(l.external_id);
  EXPECT_EQ(ids.size(), 32u);
  EXPECT_TRUE(ids.count(4294967297));  // "OMP thread 1" of rank 1: its OTF2 location reference
}

// Issue 33: the bar of the read counts events (each location's stated count, read in chunks),
// not locations begun, which held it at "31 / 32" while the largest location was read.
TEST(Otf2Reader, ProgressCountsTheEventsRead) {
  const std::string path = RealTrace("npb-btmz-B-8x4");
  SKIP_WITHOUT(path);
  std::atomic<bool> finished{false};
  uint64_t total = 0, most = 0, samples = 0;
  std::thread sampler([&] {
    while (!finished.load()) {
      const progress::Snapshot s = progress::Read();
      if (s.phase != nullptr && std::string_view(s.phase) == "reading events") {
        total = s.total;
        most = std::max(most, s.done);
        ++samples;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  });
  Result<Trace> r = ReadOtf2(path);
  finished = true;
  sampler.join();
  ASSERT_THAT(r, IsOk());
  ASSERT_GT(samples, 0u) << "the read never showed its phase";
  EXPECT_GT(total, 7'000'000u);  // the definitions' event counts, 32 locations
  EXPECT_LE(most, total);
}

TEST(Otf2Reader, ReadTraceDispatchesByExtensionAndDirectory) {
  const std::string path = CorpusTrace("ping-pong-otf2");
  SKIP_WITHOUT(path);
  Result<Trace> by_extension = ReadTrace(path);
  ASSERT_THAT(by_extension, IsOk());
  EXPECT_EQ(by_extension->format(), "otf2");
  Result<Trace> by_directory = ReadTrace(std::filesystem::path(path).parent_path().string(), "otf2");
  ASSERT_THAT(by_directory, IsOk());
  EXPECT_EQ(by_directory->event_count(), 116u);
}

TEST(Otf2Reader, MissingArchiveIsACleanError) {
  EXPECT_THAT(ReadOtf2("/nonexistent/traces.otf2"),
              StatusIs(StatusCode::kNotFound, HasSubstr("/nonexistent/traces.otf2: no such file")));
}

TEST(Otf2Reader, NotAnArchiveIsACleanError) {
  const std::string path = ::testing::TempDir() + "/not-an-archive.otf2";
  FILE* f = fopen(path.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs("hello\n", f);
  fclose(f);
  Result<Trace> r = ReadOtf2(path);
  EXPECT_THAT(r, StatusIs(StatusCode::kDataLoss, HasSubstr(path + ": not an OTF2 anchor file")));
}

}  // namespace
}  // namespace grainscope

namespace grainscope {
namespace {

// Issue 19 item 1: TraceR's stencil trace leaves region 82 on rank 0 while inner regions are open
// (event 133), and APEX leaves regions it never entered. Both load with the repairs counted;
// --strict refuses them with the message they always had.
TEST(Otf2Reader, ImproperNestingIsRepairedUnlessStrict) {
  const std::string stencil = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/tracer-stencil4d-32/traces.otf2";
  const std::string apex = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/apex-converter-head/APEX.otf2";
  SKIP_WITHOUT(stencil);
  SKIP_WITHOUT(apex);
  Result<Trace> t = ReadTrace(stencil);
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->locations().size(), 32u);
  EXPECT_EQ(t->diagnostics().Count(Diag::kImproperNestingRepaired), 3u);
  EXPECT_EQ(t->diagnostics().Count(Diag::kUnmatchedLeavesDropped), 1u);
  EXPECT_THAT(ReadTrace(stencil, "auto", ReadOptions{.strict = true}),
              StatusIs(StatusCode::kDataLoss,
                       HasSubstr("location 0, event 133 at 1048265073212215 ns: leaves region 82 which is not the "
                                 "innermost open region")));
  Result<Trace> a = ReadTrace(apex);
  ASSERT_THAT(a, IsOk());
  EXPECT_EQ(a->diagnostics().Count(Diag::kUnmatchedLeavesDropped), 2399u);
  EXPECT_EQ(a->diagnostics().Count(Diag::kUnclosedRegions), 2399u);
  EXPECT_THAT(ReadTrace(apex, "auto", ReadOptions{.strict = true}),
              StatusIs(StatusCode::kDataLoss, HasSubstr("location 1, event 780 at 120682000 ns: leaves region 0")));
}

}  // namespace
}  // namespace grainscope

namespace grainscope {
namespace {

std::map<LocationKind, int> KindCounts(const Trace& t) {
  std::map<LocationKind, int> out;
  for (const Location& l : t.locations()) out[l.kind]++;
  return out;
}

// Issue 19 item 4: Score-P's OpenMP threads (listed in its OpenMP locations group) and HIP streams
// (accelerator-stream locations, each leading its "HIP Context" group) have kinds of their own.
TEST(Otf2Reader, OpenMpThreadsAndGpuStreamsHaveTheirKinds) {
  const std::string btmz = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/npb-btmz-B-8x4/traces.otf2";
  const std::string mi300 = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/fastotf2-mi300/traces.otf2";
  SKIP_WITHOUT(btmz);
  SKIP_WITHOUT(mi300);
  Result<Trace> b = ReadTrace(btmz);
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(KindCounts(*b), (std::map<LocationKind, int>{{LocationKind::kRank, 8}, {LocationKind::kOpenMpThread, 24}}));
  Result<Trace> g = ReadTrace(mi300);
  ASSERT_THAT(g, IsOk());
  EXPECT_EQ(KindCounts(*g), (std::map<LocationKind, int>{{LocationKind::kProcess, 1}, {LocationKind::kGpuStream, 2}}));
}

// Issue 19 item 3: sst-macro's test program calls collectives on COMM_SELF-like communicators
// (one definition, a group of no members, on every rank). Each call is its own one-rank
// instance, never one 10-rank collective; identity replay of the trace is exact.
TEST(Otf2Reader, CollectivesOnCommSelfStayWithTheirRank) {
  const std::string path = RealTrace("sstmacro-otf2-test");
  SKIP_WITHOUT(path);
  Result<Trace> r = ReadTrace(path);
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  const CollectiveTable& c = t.collectives();
  size_t one_rank = 0;
  for (uint32_t i = 0; i < c.size(); ++i) {
    const Communicator& comm = t.communicators()[c.communicator[i].value];
    // Every participant is a member of the instance's communicator.
    for (uint32_t k = c.first_member[i]; k < c.first_member[i + 1]; ++k) {
      const LocationId m = c.member_location[k];
      EXPECT_NE(std::find(comm.members.begin(), comm.members.end(), m), comm.members.end()) << "collective " << i;
    }
    one_rank += comm.members.size() == 1 && c.member_count(CollectiveId(i)) == 1;
  }
  EXPECT_GT(one_rank, 0u);
  EXPECT_EQ(c.member_location.size(), 1200u);  // every MPI_COLLECTIVE_BEGIN/END pair
}

}  // namespace
}  // namespace grainscope
