// The late barrier ends of a fork-join team (model/barrier_release.h), built as the OMPT tool
// records them under libomp: the worker's implicit-barrier end comes when the master forks the
// next parallel region. Closed forms: 10 x (1 ms of parallel work on 2 threads + 4 ms of serial
// work on the master).
#include "model/barrier_release.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/critpath/critpath.h"
#include "analysis/regions/time_classes.h"
#include "analysis/waits/call_sites.h"
#include "analysis/waits/wait_states.h"
#include "base/status_matchers.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

constexpr TimeNs kMs = 1'000'000;
constexpr int kRegions = 10;

// Region k: fork at 5k ms (the worker begins 100 ns later); both threads work 1 ms (the worker 0.5 ms less: it waits 0.5 ms in
// the barrier); the master leaves the barrier at 5k + 1 ms and works alone 4 ms. The worker's
// leave is stamped at the next fork (5(k + 1) ms) when `late`, else at the master's leave.
Trace ForkJoin(bool late) {
  TraceBuilder b("test");
  const LocationId master = b.AddLocation("thread 0", LocationKind::kThread, 0);
  const LocationId worker = b.AddLocation("thread 1", LocationKind::kThread, 1);
  const RegionId parallel = b.AddRegion("omp parallel", RegionRole::kFunction, 1);
  const RegionId barrier = b.AddRegion("omp barrier", RegionRole::kFunction, 2);
  const RegionId serial = b.AddRegion("serial", RegionRole::kFunction, 3);
  for (int k = 0; k < kRegions; ++k) {
    const TimeNs t = 5 * k * kMs;
    const uint64_t team = k + 1;
    b.Enter(master, t, parallel);
    b.Sync(master, t, SyncKind::kThreadCreate, team << 20);
    b.Sync(master, t, SyncKind::kThreadBegin, team << 20);
    b.Enter(master, t + kMs, barrier);
    b.Sync(master, t + kMs, SyncKind::kBarrierEnter, team, 2);
    b.Sync(master, t + kMs + 10, SyncKind::kBarrierLeave, team);
    b.Leave(master, t + kMs + 10, barrier);
    b.Leave(master, t + kMs + 20, parallel);
    b.Enter(master, t + kMs + 20, serial);
    b.Leave(master, t + 5 * kMs, serial);

    b.Sync(worker, t + 100, SyncKind::kThreadBegin, team << 20);
    b.Enter(worker, t + kMs / 2, barrier);
    b.Sync(worker, t + kMs / 2, SyncKind::kBarrierEnter, team, 2);
    if (k == kRegions - 1) break;  // libomp never reports the end of the last one (no next fork)
    const TimeNs leave = late ? t + 5 * kMs + 50 : t + kMs + 15;
    b.Sync(worker, leave, SyncKind::kBarrierLeave, team);
    b.Leave(worker, leave, barrier);
  }
  Result<Trace> r = b.Finish();
  EXPECT_THAT(r, IsOk());
  return std::move(r).value();
}

TimeNs OnPath(const Trace& t, const CriticalPath& cp, std::string_view region) {
  for (const RegionPathTime& p : cp.profile)
    if (t.str(t.region(p.region).name) == region) return p.time_ns;
  return 0;
}

TEST(BarrierRelease, LateWorkerEndsMoveToTheRelease) {
  const Trace t = ForkJoin(true);
  // Every region but the last: its worker's leave comes after the next fork. The last one, never
  // left, is closed at its release.
  EXPECT_EQ(t.diagnostics().Count(Diag::kLateBarrierEndsMoved), kRegions - 1u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kBarrierEndsAdded), 1u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kUnfinishedCollectives), 0u);
  EXPECT_EQ(t.events(LocationId(1)).time.back(), (5 * (kRegions - 1) + 1) * kMs + 10);
  const EventColumns& w = t.events(LocationId(1));
  // Region 0's worker events: begin, enter, barrier enter, leave (moved), region end (moved).
  EXPECT_EQ(w.time[3], kMs + 10);
  EXPECT_EQ(w.time[4], kMs + 10);
}

TEST(BarrierRelease, SerialWorkIsOnThePathAndTheWorkerIdle) {
  const Trace t = ForkJoin(true);
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(OnPath(t, *cp, "serial"), kRegions * (4 * kMs - 20));
  EXPECT_LT(OnPath(t, *cp, "omp barrier"), kRegions * 100);
  const WaitStates ws = FindWaitStates(t, FindCallSites(t));
  EXPECT_EQ(ws.time_ns[static_cast<int>(WaitKind::kBarrierCompletion)], 0);
  // The worker waits 0.5 ms in each barrier for the master.
  EXPECT_EQ(ws.time_ns[static_cast<int>(WaitKind::kWaitAtBarrier)], kRegions * kMs / 2);
  const TimeBreakdown time = ComputeTimeBreakdown(t);
  // The worker: idle before its first fork, from each release to the next fork (4 ms + 90 ns) and
  // after the last release (4 ms - 10 ns before the end); synchronisation only in the barriers,
  // computation between its forks and its barriers.
  const LocationTime& worker = time.locations[1];
  EXPECT_EQ(worker[TimeClass::kIdle], 100 + (kRegions - 1) * (4 * kMs + 90) + (4 * kMs - 10));
  EXPECT_EQ(worker[TimeClass::kComputation], kRegions * (kMs / 2 - 100));
  EXPECT_EQ(worker[TimeClass::kThreadSync], kRegions * (kMs / 2 + 10));
}

// Leaves on time (Score-P's OPARI2 records, or a fixed runtime) are left as recorded.
TEST(BarrierRelease, OnTimeEndsAreKept) {
  const Trace t = ForkJoin(false);
  EXPECT_EQ(t.diagnostics().Count(Diag::kLateBarrierEndsMoved), 0u);
  EXPECT_EQ(t.events(LocationId(1)).time[3], kMs + 15);
}

}  // namespace
}  // namespace grainscope
