#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <tuple>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/profile/profile.h"
#include "analysis/regions/region_instances.h"
#include "analysis/regions/region_profile.h"
#include "analysis/regions/time_classes.h"
#include "base/status_matchers.h"
#include "format/trace_reader.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;

// Two ranks and a worker thread of rank 0, times in ns; span [0, 50]:
//   rank 0     main [0,40] holding MPI_Send [10,15] and MPI_Barrier [20,30]; nothing after 40
//   rank 1     MPI_Recv [5,12], MPI_Allreduce [20,35], MPI_Wait [35,36], MPI_Finalize [45,50]
//   worker     work [10,20], work [30,32]
Trace ThreeLocations() {
  TraceBuilder b("test");
  const LocationId r0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  const LocationId r1 = b.AddLocation("rank 1", LocationKind::kRank, 1);
  const LocationId w = b.AddLocation("rank 0 thread 1", LocationKind::kThread, 0);
  b.SetLocationGroup(w, r0.value);
  const RegionId main_r = b.AddRegion("main", RegionRole::kFunction, 0);
  const RegionId send = b.AddRegion("MPI_Send", RegionRole::kPointToPoint, 1);
  const RegionId barrier = b.AddRegion("MPI_Barrier", RegionRole::kCollective, 2);
  const RegionId recv = b.AddRegion("MPI_Recv", RegionRole::kPointToPoint, 3);
  const RegionId allreduce = b.AddRegion("MPI_Allreduce", RegionRole::kCollective, 4);
  const RegionId wait = b.AddRegion("MPI_Wait", RegionRole::kWait, 5);
  const RegionId finalize = b.AddRegion("MPI_Finalize", RegionRole::kOther, 6);
  const RegionId work = b.AddRegion("work", RegionRole::kFunction, 7);
  b.Enter(r0, 0, main_r);
  b.Enter(r0, 10, send);
  b.Leave(r0, 15, send);
  b.Enter(r0, 20, barrier);
  b.Leave(r0, 30, barrier);
  b.Leave(r0, 40, main_r);
  b.Enter(r1, 5, recv);
  b.Leave(r1, 12, recv);
  b.Enter(r1, 20, allreduce);
  b.Leave(r1, 35, allreduce);
  b.Enter(r1, 35, wait);
  b.Leave(r1, 36, wait);
  b.Enter(r1, 45, finalize);
  b.Leave(r1, 50, finalize);
  b.Enter(w, 10, work);
  b.Leave(w, 20, work);
  b.Enter(w, 30, work);
  b.Leave(w, 32, work);
  Result<Trace> t = b.Finish();
  EXPECT_THAT(t, IsOk());
  return std::move(*t);
}

std::vector<TimeNs> Classes(const LocationTime& lt) { return {lt.ns, lt.ns + kTimeClassCount}; }

TEST(TimeBreakdown, ClassesAddUpToTheSpan) {
  const Trace t = ThreeLocations();
  const TimeBreakdown b = ComputeTimeBreakdown(t);
  EXPECT_EQ(b.span_ns, 50);
  ASSERT_EQ(b.locations.size(), 3u);
  //                                        computation p2p coll sync other init/fin thread gpu idle
  EXPECT_THAT(Classes(b.locations[0]), ElementsAre(25, 5, 0, 10, 0, 0, 0, 0, 10));
  // MPI_Finalize is the library's shut-down, apart from other MPI calls (Scalasca keeps it apart).
  EXPECT_THAT(Classes(b.locations[1]), ElementsAre(17, 7, 15, 1, 0, 5, 0, 0, 5));
  // A worker thread outside its regions is idle (Scalasca's idle threads).
  EXPECT_THAT(Classes(b.locations[2]), ElementsAre(12, 0, 0, 0, 0, 0, 0, 0, 38));
  EXPECT_THAT(std::vector<TimeNs>(b.total, b.total + kTimeClassCount), ElementsAre(54, 12, 15, 11, 0, 5, 0, 0, 53));
}

TEST(TimeBreakdown, CallsNestedInCallsAreTheOuterCalls) {
  TraceBuilder b("test");
  const LocationId r0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  const RegionId sendrecv = b.AddRegion("MPI_Sendrecv", RegionRole::kPointToPoint, 0);
  const RegionId inner = b.AddRegion("helper", RegionRole::kFunction, 1);
  const RegionId barrier = b.AddRegion("!$omp implicit barrier", RegionRole::kCollective, 2);
  b.Enter(r0, 0, sendrecv);
  b.Enter(r0, 2, inner);
  b.Leave(r0, 6, inner);
  b.Leave(r0, 10, sendrecv);
  b.Enter(r0, 10, barrier);  // an OpenMP barrier is thread synchronisation, whatever its case
  b.Leave(r0, 14, barrier);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  EXPECT_THAT(Classes(ComputeTimeBreakdown(*t).locations[0]), ElementsAre(0, 10, 0, 0, 0, 0, 4, 0, 0));
}

// In the seed's traces a processor is busy only in grains: its computation is the EPA's busy time
// (figure 4.5: the rest is its sends and receives and idle time).
TEST(TimeBreakdown, SeedProcessorsComputeInGrainsOnly) {
  Result<Trace> t = ReadTrace(std::string(GRAINSCOPE_EXAMPLES_DIR) + "/traces/fig4_5.txt");
  ASSERT_THAT(t, IsOk());
  Result<ExecutionProfile> p = ComputeProfile(*t);
  ASSERT_THAT(p, IsOk());
  const TimeBreakdown b = ComputeTimeBreakdown(*t);
  ASSERT_EQ(b.locations.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    EXPECT_EQ(b.locations[k][TimeClass::kComputation], p->processors[k].busy_ns);
    TimeNs sum = 0;
    for (TimeNs v : b.locations[k].ns) sum += v;
    EXPECT_EQ(sum, b.span_ns);
  }
}

// Blocked spans are the synchronisation time of the breakdown, one per stretch and cause: MPI
// calls by their outermost call's name, and sync events by what the thread waited for.
TEST(BlockedSpans, CallsAndThreadSynchronisation) {
  const Trace t = ThreeLocations();
  const std::vector<std::vector<BlockedSpan>> spans = ComputeBlockedSpans(t);
  ASSERT_EQ(spans.size(), 3u);
  ASSERT_EQ(spans[0].size(), 1u);  // rank 0: MPI_Barrier [20,30]
  EXPECT_EQ(spans[0][0].start, 20);
  EXPECT_EQ(spans[0][0].stop, 30);
  EXPECT_EQ(BlockedSpanCause(t, spans[0][0]), "MPI_Barrier");
  ASSERT_EQ(spans[1].size(), 1u);  // rank 1: MPI_Wait [35,36]
  EXPECT_EQ(BlockedSpanCause(t, spans[1][0]), "MPI_Wait");
  EXPECT_TRUE(spans[2].empty());

  // A thread inside a grain asks for a lock at 10 and gets it at 25, waits on a condition from 30
  // to 40 and joins a child from 50 to 55.
  TraceBuilder b("test");
  const LocationId th = b.AddLocation("thread 0", LocationKind::kThread, 0);
  const RegionId grain = b.AddRegion("work", RegionRole::kGrain, 0);
  b.Enter(th, 0, grain);
  b.Sync(th, 10, SyncKind::kLockRequest, 1);
  b.Sync(th, 25, SyncKind::kLockAcquired, 1);
  b.Sync(th, 27, SyncKind::kLockRelease, 1);
  b.Sync(th, 30, SyncKind::kCondWaitBegin, 2);
  b.Sync(th, 40, SyncKind::kCondWaitEnd, 2);
  b.Sync(th, 50, SyncKind::kThreadJoinBegin, 3);
  b.Sync(th, 55, SyncKind::kThreadJoinEnd, 3);
  b.Leave(th, 60, grain);
  b.SetDeriveThreadSync(false);
  Result<Trace> threads = b.Finish();
  ASSERT_THAT(threads, IsOk());
  const std::vector<BlockedSpan> s = ComputeBlockedSpans(*threads)[0];
  ASSERT_EQ(s.size(), 3u);
  EXPECT_EQ(BlockedSpanCause(*threads, s[0]), "lock");
  EXPECT_EQ(s[0].start, 10);
  EXPECT_EQ(s[0].stop, 25);
  EXPECT_EQ(BlockedSpanCause(*threads, s[1]), "condition");
  EXPECT_EQ(s[1].stop - s[1].start, 10);
  EXPECT_EQ(BlockedSpanCause(*threads, s[2]), "join");
  EXPECT_EQ(s[2].stop - s[2].start, 5);
  TimeNs blocked = 0;
  for (const BlockedSpan& span : s) blocked += span.stop - span.start;
  EXPECT_EQ(blocked, ComputeTimeBreakdown(*threads).locations[0][TimeClass::kThreadSync]);
}

TEST(RegionProfile, CallsInclusiveExclusiveMinMeanMax) {
  const Trace t = ThreeLocations();
  const RegionProfile p = ComputeRegionProfile(t);
  std::vector<std::string> order;
  for (const RegionProfileRow& r : p.rows) order.emplace_back(t.str(t.region(r.region).name));
  // By exclusive time; MPI_Send and MPI_Finalize tie (5, 5): region id.
  EXPECT_THAT(order, ElementsAre("main", "MPI_Allreduce", "work", "MPI_Barrier", "MPI_Recv", "MPI_Send",
                                 "MPI_Finalize", "MPI_Wait"));
  const RegionStats& main_s = p.rows[0].total;
  EXPECT_EQ(main_s.calls, 1u);
  EXPECT_EQ(main_s.inclusive_ns, 40);
  EXPECT_EQ(main_s.exclusive_ns, 25);  // minus MPI_Send 5 and MPI_Barrier 10
  const RegionStats& work = p.rows[2].total;
  EXPECT_EQ(work.calls, 2u);
  EXPECT_EQ(work.inclusive_ns, 12);
  EXPECT_EQ(work.exclusive_ns, 12);
  EXPECT_EQ(work.min_ns, 2);
  EXPECT_EQ(work.max_ns, 10);
  EXPECT_EQ(work.mean_ns(), 6);
  ASSERT_EQ(p.rows[2].count, 1u);
  EXPECT_EQ(p.by_location[p.rows[2].first].location, LocationId(2));
}

TEST(RegionProfile, PerLocationRowsAndRoundedMean) {
  TraceBuilder b("test");
  const LocationId l0 = b.AddLocation("p0", LocationKind::kProcessor, 0);
  const LocationId l1 = b.AddLocation("p1", LocationKind::kProcessor, 1);
  const RegionId f = b.AddRegion("f", RegionRole::kFunction, 0);
  b.Enter(l0, 0, f);
  b.Leave(l0, 2, f);
  b.Enter(l0, 2, f);
  b.Leave(l0, 5, f);  // calls of 2 and 3 ns: mean 2.5 rounds to 3
  b.Enter(l1, 0, f);
  b.Enter(l1, 1, f);  // recursion: each call counts, the outer one's exclusive excludes the inner
  b.Leave(l1, 4, f);
  b.Leave(l1, 10, f);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  const RegionProfile p = ComputeRegionProfile(*t);
  ASSERT_EQ(p.rows.size(), 1u);
  const RegionProfileRow& row = p.rows[0];
  ASSERT_EQ(row.count, 2u);
  const RegionStats& s0 = p.by_location[row.first].stats;
  EXPECT_EQ(s0.calls, 2u);
  EXPECT_EQ(s0.mean_ns(), 3);
  const RegionStats& s1 = p.by_location[row.first + 1].stats;
  EXPECT_EQ(s1.calls, 2u);
  EXPECT_EQ(s1.inclusive_ns, 13);
  EXPECT_EQ(s1.exclusive_ns, 10);
  EXPECT_EQ(row.total.calls, 4u);
  EXPECT_EQ(row.total.inclusive_ns, 18);
  EXPECT_EQ(row.total.exclusive_ns, 15);
  EXPECT_EQ(row.total.min_ns, 2);
  EXPECT_EQ(row.total.max_ns, 10);
}

// Issue 33: one function defined twice (two OTF2 region references, two files) is one row; a
// region of the same name and another role is another.
TEST(RegionProfile, RegionsOfOneNameAndRoleAreOneRow) {
  TraceBuilder b("test");
  const LocationId l0 = b.AddLocation("p0", LocationKind::kProcessor, 0);
  const RegionId f1 = b.AddRegion("f", RegionRole::kFunction, 10);
  const RegionId f2 = b.AddRegion("f", RegionRole::kFunction, 11);
  const RegionId f_grain = b.AddRegion("f", RegionRole::kGrain, 12);
  b.Enter(l0, 0, f1);
  b.Leave(l0, 2, f1);
  b.Enter(l0, 2, f2);
  b.Enter(l0, 3, f_grain);
  b.Leave(l0, 4, f_grain);
  b.Leave(l0, 7, f2);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  EXPECT_THAT(FirstRegionOfName(*t), ElementsAre(0u, 0u, 2u));
  const RegionProfile p = ComputeRegionProfile(*t);
  ASSERT_EQ(p.rows.size(), 2u);
  EXPECT_EQ(p.rows[0].region, f1);
  EXPECT_EQ(p.rows[0].total.calls, 2u);
  EXPECT_EQ(p.rows[0].total.inclusive_ns, 7);
  EXPECT_EQ(p.rows[0].total.exclusive_ns, 6);
  EXPECT_EQ(p.rows[1].region, f_grain);
  EXPECT_EQ(p.rows[1].total.calls, 1u);
}

// `report --instances`: every instance by location and start with its id where it has one; the
// top N are the N longest of them, longest first.
TEST(RegionInstances, AllByStartAndTheLongestWithTheirIds) {
  TraceBuilder b("test");
  const LocationId l0 = b.AddLocation("p0", LocationKind::kProcessor, 0);
  const LocationId l1 = b.AddLocation("p1", LocationKind::kProcessor, 1);
  const RegionId block = b.AddRegion("block", RegionRole::kGrain, 1);
  const RegionId inner = b.AddRegion("inner", RegionRole::kFunction, 2);
  b.EnterInstance(l0, 0, block, 7);
  b.Enter(l0, 1, inner);
  b.Leave(l0, 4, inner);
  b.Leave(l0, 10, block);
  b.EnterInstance(l0, 10, block, 8);
  b.Leave(l0, 12, block);
  b.EnterInstance(l1, 0, block, 9);
  b.Leave(l1, 20, block);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  const RegionInstances all = CollectRegionInstances(*t, 0);
  ASSERT_EQ(all.total, 4u);
  ASSERT_EQ(all.rows.size(), 4u);
  std::vector<std::tuple<uint32_t, TimeNs, TimeNs, int64_t>> rows;
  for (const RegionInstance& r : all.rows) rows.emplace_back(r.location.value, r.start, r.duration, r.id.value_or(-1));
  EXPECT_THAT(rows, ElementsAre(std::make_tuple(0u, 0, 10, 7), std::make_tuple(0u, 1, 3, -1),
                                std::make_tuple(0u, 10, 2, 8), std::make_tuple(1u, 0, 20, 9)));
  const RegionInstances top = CollectRegionInstances(*t, 2);
  EXPECT_EQ(top.total, 4u);
  ASSERT_EQ(top.rows.size(), 2u);
  EXPECT_EQ(top.rows[0].id, std::optional<int64_t>(9));  // 20 ns
  EXPECT_EQ(top.rows[1].id, std::optional<int64_t>(7));  // 10 ns
}

// The corpus README's reference: a per-location stack over otf2-print lines gives 49,647 instances
// of `!$omp do @z_solve.f:52`, inclusive = exclusive = 250,831,150,281 ns summed over locations.
TEST(RegionProfile, NpbBtMzCorpusTrace) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/npb-btmz-B-8x4/traces.otf2";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  Result<Trace> t = ReadTrace(path);
  ASSERT_THAT(t, IsOk());
  const auto begin = std::chrono::steady_clock::now();
  const RegionProfile p = ComputeRegionProfile(*t);
  const TimeBreakdown b = ComputeTimeBreakdown(*t);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  // Two linear passes: 0.07 s in the release build; the bound catches a quadratic slip even under
  // a sanitizer on a loaded machine.
  std::fprintf(stderr, "region profile and time classes of 7.3 M events: %.2f s\n", seconds);
  EXPECT_LT(seconds, 10.0);
  bool found = false;
  for (const RegionProfileRow& r : p.rows) {
    if (t->str(t->region(r.region).name) != "!$omp do @z_solve.f:52") continue;
    found = true;
    EXPECT_EQ(r.total.calls, 49'647u);
    EXPECT_EQ(r.total.inclusive_ns, 250'831'150'281);
    EXPECT_EQ(r.total.exclusive_ns, 250'831'150'281);
  }
  EXPECT_TRUE(found);
  for (const LocationTime& lt : b.locations) {
    TimeNs sum = 0;
    for (TimeNs v : lt.ns) sum += v;
    EXPECT_EQ(sum, b.span_ns);
  }
}

}  // namespace
}  // namespace grainscope
