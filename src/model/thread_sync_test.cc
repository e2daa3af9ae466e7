// Closed-form checks of the threads' sync events (model/thread_sync.h) through the analyses:
// issue 21's barrier, lock and producer/consumer cases, with exact times.
#include "model/thread_sync.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/replay.h"
#include "analysis/waits/call_sites.h"
#include "analysis/waits/wait_states.h"
#include <unistd.h>

#include <filesystem>

#include "base/status_matchers.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

constexpr TimeNs kMs = 1'000'000;

struct Threads {
  TraceBuilder b{"test"};
  std::vector<LocationId> t;
  RegionId work;
  explicit Threads(int n) {
    for (int i = 0; i < n; ++i) t.push_back(b.AddLocation("thread " + std::to_string(i), LocationKind::kThread, i));
    work = b.AddRegion("work", RegionRole::kFunction, 1);
  }
  void Work(int i, TimeNs from, TimeNs to) {
    b.Enter(t[i], from, work);
    b.Leave(t[i], to, work);
  }
  Trace Finish() {
    Result<Trace> r = b.Finish();
    EXPECT_THAT(r, IsOk());
    return std::move(r).value();
  }
};

TimeNs OnPath(const CriticalPath& cp, LocationId l) {
  TimeNs sum = 0;
  for (const PathSegment& s : cp.path)
    if (s.location == l) sum += s.time_ns;
  return sum;
}

TEST(ThreadSync, LabelsRoundTrip) {
  const std::string label = SyncLabel(SyncKind::kBarrierEnter, 0x7ffd1234, 4);
  EXPECT_EQ(label, "sync.barrier_enter 7ffd1234 4");
  auto p = ParseSyncLabel(label);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->kind, SyncKind::kBarrierEnter);
  EXPECT_EQ(p->object, 0x7ffd1234u);
  EXPECT_EQ(p->arg, 4u);
  EXPECT_FALSE(ParseSyncLabel("sync.lock_taken 1 0"));
  EXPECT_FALSE(ParseSyncLabel("sync.lock_acquired zz 0"));
  EXPECT_FALSE(ParseSyncLabel("sync.lock_acquired 1"));
  EXPECT_FALSE(ParseSyncLabel("phase 1"));
  EXPECT_EQ(ThreadBarrierObject(ThreadBarrierName(0xabc)), 0xabcu);
  EXPECT_FALSE(ThreadBarrierObject("MPI_COMM_WORLD"));
}

// A barrier after W(1 + 2t) of work on threads t = 0..3: they wait sum(W(7 - (1 + 2t))) = 12 W
// in it, and the path is the last thread's work.
TEST(ThreadSync, BarrierWaitsClosedForm) {
  constexpr TimeNs W = 5 * kMs;
  Threads th(4);
  int barrier = 0;
  for (int i = 0; i < 4; ++i) {
    th.Work(i, 0, W * (1 + 2 * i));
    th.b.Sync(th.t[i], W * (1 + 2 * i), SyncKind::kBarrierEnter, reinterpret_cast<uintptr_t>(&barrier), 4);
    th.b.Sync(th.t[i], 7 * W, SyncKind::kBarrierLeave, reinterpret_cast<uintptr_t>(&barrier));
    th.Work(i, 7 * W, 8 * W);
  }
  const Trace t = th.Finish();
  ASSERT_EQ(t.collectives().size(), 1u);
  EXPECT_EQ(t.collectives().op[0], CollectiveOp::kBarrier);
  EXPECT_EQ(t.collectives().member_count(CollectiveId(0)), 4u);
  EXPECT_EQ(t.str(t.communicators()[0].name), ThreadBarrierName(reinterpret_cast<uintptr_t>(&barrier)));
  const WaitStates ws = FindWaitStates(t, FindCallSites(t));
  EXPECT_EQ(ws.time_ns[static_cast<int>(WaitKind::kWaitAtBarrier)], 12 * W);
  EXPECT_EQ(ws.count[static_cast<int>(WaitKind::kWaitAtBarrier)], 3u);
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, 8 * W);
  EXPECT_EQ(OnPath(*cp, th.t[3]), 7 * W);
  Result<ReplayResult> identity = Replay(t, WhatIf());
  ASSERT_THAT(identity, IsOk());
  EXPECT_EQ(identity->max_deviation_ns, 0);
}

// A lock held 10 ms by each of 4 threads in turn (all ask at 0): the path runs through every
// critical section, 40 ms, one after the other.
TEST(ThreadSync, LockHandoverPutsEveryCriticalSectionOnThePath) {
  Threads th(4);
  int lock = 0;
  const uint64_t l = reinterpret_cast<uintptr_t>(&lock);
  for (int i = 0; i < 4; ++i) {
    th.b.Sync(th.t[i], 0, SyncKind::kLockRequest, l);
    th.b.Sync(th.t[i], 10 * kMs * i, SyncKind::kLockAcquired, l);
    th.Work(i, 10 * kMs * i, 10 * kMs * (i + 1));
    th.b.Sync(th.t[i], 10 * kMs * (i + 1), SyncKind::kLockRelease, l);
  }
  const Trace t = th.Finish();
  ASSERT_EQ(t.dependencies().size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(t.dependencies().kind[r], DependencyKind::kLockHandover);
    EXPECT_EQ(t.dependencies().from_location[r], th.t[r]);
    EXPECT_EQ(t.dependencies().to_location[r], th.t[r + 1]);
  }
  // 0 + 10 + 20 + 30 ms of contention, each charged to the thread that held the lock.
  const WaitStates ws = FindWaitStates(t, FindCallSites(t));
  EXPECT_EQ(ws.time_ns[static_cast<int>(WaitKind::kLockContention)], 60 * kMs);
  EXPECT_EQ(ws.count[static_cast<int>(WaitKind::kLockContention)], 3u);
  for (const WaitInstance& w : ws.instances) EXPECT_EQ(w.late.value + 1, w.waiter.value);
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, 40 * kMs);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(OnPath(*cp, th.t[i]), 10 * kMs) << "thread " << i;
  Result<ReplayResult> identity = Replay(t, WhatIf());
  ASSERT_THAT(identity, IsOk());
  EXPECT_EQ(identity->max_deviation_ns, 0);
}

// A consumer waits on a condition variable from 10 ms until the producer, after 50 ms of work,
// signals it: the producer's work is on the path, the consumer's waiting is not.
TEST(ThreadSync, ProducerIsOnThePathOfItsConsumer) {
  Threads th(2);
  int cond = 0;
  const uint64_t c = reinterpret_cast<uintptr_t>(&cond);
  th.Work(0, 0, 50 * kMs);
  th.b.Sync(th.t[0], 50 * kMs, SyncKind::kCondSignal, c);
  th.Work(1, 0, 10 * kMs);
  th.b.Sync(th.t[1], 10 * kMs, SyncKind::kCondWaitBegin, c);
  th.b.Sync(th.t[1], 51 * kMs, SyncKind::kCondWaitEnd, c);
  th.Work(1, 51 * kMs, 60 * kMs);
  const Trace t = th.Finish();
  ASSERT_EQ(t.dependencies().size(), 1u);
  EXPECT_EQ(t.dependencies().kind[0], DependencyKind::kConditionSignal);
  const WaitStates ws = FindWaitStates(t, FindCallSites(t));
  ASSERT_EQ(ws.instances.size(), 1u);
  EXPECT_EQ(ws.instances[0].kind, WaitKind::kConditionWait);
  EXPECT_EQ(ws.instances[0].wait_ns, 40 * kMs);  // from its wait's begin (10) to the signal (50)
  EXPECT_EQ(ws.instances[0].late, th.t[0]);
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  // The producer's 50 ms, then the consumer's 9 ms (the 1 ms the wake-up took is waiting).
  EXPECT_EQ(cp->length_ns, 59 * kMs);
  EXPECT_EQ(OnPath(*cp, th.t[0]), 50 * kMs);
  EXPECT_EQ(OnPath(*cp, th.t[1]), 9 * kMs);
}

// A wait that returned with no signal in it (a timeout) depends on nobody.
TEST(ThreadSync, WaitWithoutSignalHasNoEdge) {
  Threads th(2);
  int cond = 0;
  const uint64_t c = reinterpret_cast<uintptr_t>(&cond);
  th.b.Sync(th.t[0], 1 * kMs, SyncKind::kCondSignal, c);  // before the wait began: lost
  th.b.Sync(th.t[1], 2 * kMs, SyncKind::kCondWaitBegin, c);
  th.b.Sync(th.t[1], 9 * kMs, SyncKind::kCondWaitEnd, c);
  EXPECT_EQ(th.Finish().dependencies().size(), 0u);
}

// Create -> the child's begin, the child's end -> the join: the child's work is on the path.
TEST(ThreadSync, CreateAndJoin) {
  Threads th(2);
  th.b.Sync(th.t[0], 0, SyncKind::kThreadCreate, 7);
  th.b.Sync(th.t[0], 5 * kMs, SyncKind::kThreadJoinBegin, 7);
  th.b.Sync(th.t[0], 31 * kMs, SyncKind::kThreadJoinEnd, 7);
  th.b.Sync(th.t[1], 1 * kMs, SyncKind::kThreadBegin, 7);
  th.Work(1, 1 * kMs, 30 * kMs);
  th.b.Sync(th.t[1], 30 * kMs, SyncKind::kThreadEnd, 7);
  const Trace t = th.Finish();
  ASSERT_EQ(t.dependencies().size(), 2u);
  EXPECT_EQ(t.dependencies().kind[0], DependencyKind::kFork);
  EXPECT_EQ(t.dependencies().kind[1], DependencyKind::kJoin);
  const WaitStates ws = FindWaitStates(t, FindCallSites(t));
  ASSERT_EQ(ws.instances.size(), 1u);
  EXPECT_EQ(ws.instances[0].kind, WaitKind::kJoinWait);
  EXPECT_EQ(ws.instances[0].wait_ns, 25 * kMs);  // from the join's begin (5) to the child's end (30)
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  // The child's 29 ms (the 1 ms on each edge, start-up and the join's return, is waiting).
  EXPECT_EQ(cp->length_ns, 29 * kMs);
  EXPECT_EQ(OnPath(*cp, th.t[1]), 29 * kMs);
}

// Two rounds of a 2-thread barrier: arrivals in time order make the instances, whichever
// thread arrives first; an arrival never left is counted, not refused.
TEST(ThreadSync, BarrierInstancesByArrivalOrder) {
  Threads th(3);
  int barrier = 0;
  const uint64_t o = reinterpret_cast<uintptr_t>(&barrier);
  th.b.Sync(th.t[0], 1, SyncKind::kBarrierEnter, o, 2);
  th.b.Sync(th.t[0], 5, SyncKind::kBarrierLeave, o);
  th.b.Sync(th.t[1], 5, SyncKind::kBarrierEnter, o, 2);
  th.b.Sync(th.t[1], 5, SyncKind::kBarrierLeave, o);
  th.b.Sync(th.t[2], 6, SyncKind::kBarrierEnter, o, 2);  // round 2: threads 2 and 0
  th.b.Sync(th.t[2], 9, SyncKind::kBarrierLeave, o);
  th.b.Sync(th.t[0], 9, SyncKind::kBarrierEnter, o, 2);
  th.b.Sync(th.t[0], 9, SyncKind::kBarrierLeave, o);
  th.b.Sync(th.t[1], 20, SyncKind::kBarrierEnter, o, 2);  // round 3: the run ends first
  const Trace t = th.Finish();
  ASSERT_EQ(t.collectives().size(), 2u);
  EXPECT_EQ(t.collectives().member_location[0], th.t[0]);
  EXPECT_EQ(t.collectives().member_location[1], th.t[1]);
  EXPECT_EQ(t.collectives().member_location[2], th.t[0]);
  EXPECT_EQ(t.collectives().member_location[3], th.t[2]);
  EXPECT_EQ(t.diagnostics().Count(Diag::kUnfinishedCollectives), 1u);
  EXPECT_EQ(t.events(th.t[1]).kind.back(), EventKind::kSync);  // the lone arrival stays an event
}

// Every format grainscope writes keeps the sync events: .gst as sync records (a barrier's
// instance as the enter and leave records it was made of), OTF2 and Chrome as sync labels.
TEST(ThreadSync, WrittenTracesKeepTheirSyncEvents) {
  Threads th(2);
  int lock = 0, barrier = 0;
  const uint64_t l = reinterpret_cast<uintptr_t>(&lock), o = reinterpret_cast<uintptr_t>(&barrier);
  for (int i = 0; i < 2; ++i) {
    th.b.Sync(th.t[i], 0, SyncKind::kLockRequest, l);
    th.b.Sync(th.t[i], 10 * i, SyncKind::kLockAcquired, l);
    th.Work(i, 10 * i, 10 * i + 10);
    th.b.Sync(th.t[i], 10 * i + 10, SyncKind::kLockRelease, l);
    th.b.Sync(th.t[i], 10 * i + 10, SyncKind::kBarrierEnter, o, 2);
    th.b.Sync(th.t[i], 20, SyncKind::kBarrierLeave, o);
  }
  th.b.Marker(th.t[0], 25, th.b.Intern("phase 2"));
  const Trace original = th.Finish();
  ASSERT_EQ(original.dependencies().size(), 1u);
  ASSERT_EQ(original.collectives().size(), 1u);
  for (const char* ext : {".gst", ".otf2", ".json"}) {
    const std::filesystem::path path =
        std::filesystem::path(::testing::TempDir()) / fmt::format("gs-sync-{}{}", getpid(), ext);
    std::filesystem::remove_all(path);
    ASSERT_THAT(WriteTrace(original, path.string()), IsOk()) << ext;
    Result<Trace> back = ReadTrace(path.string());
    ASSERT_THAT(back, IsOk()) << ext;
    EXPECT_EQ(back->event_count(), original.event_count()) << ext;
    ASSERT_EQ(back->dependencies().size(), 1u) << ext;
    EXPECT_EQ(back->dependencies().kind[0], DependencyKind::kLockHandover) << ext;
    ASSERT_EQ(back->collectives().size(), 1u) << ext;
    EXPECT_EQ(back->collectives().member_count(CollectiveId(0)), 2u) << ext;
    for (uint32_t loc = 0; loc < 2; ++loc) {
      const EventColumns& a = original.events(LocationId(loc));
      const EventColumns& b = back->events(LocationId(loc));
      ASSERT_EQ(a.size(), b.size()) << ext;
      for (size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(b.time[i] - back->start_ns(), a.time[i] - original.start_ns()) << ext << " event " << i;
        EXPECT_EQ(b.kind[i], a.kind[i]) << ext << " event " << i;
        if (a.kind[i] == EventKind::kSync) {
          EXPECT_EQ(back->syncs().kind[b.arg[i]], original.syncs().kind[a.arg[i]]) << ext << " event " << i;
          EXPECT_EQ(back->syncs().object[b.arg[i]], original.syncs().object[a.arg[i]]) << ext << " event " << i;
        }
      }
    }
    std::filesystem::remove_all(path);
  }
}

// Issue 21's check on real data: Score-P's trace of NPB BT-MZ (8 ranks x 4 OpenMP threads). Its
// OpenMP teams (ThreadFork, ThreadTeamBegin/End, ThreadJoin) and implicit barrier regions become
// fork/join edges and barrier instances: the barrier waiting is reported per barrier and per
// thread (Scalasca finds 55.5 s of it), and the critical path runs through the worker threads.
TEST(ThreadSync, ScorepOpenMpBarriersOfBtMz) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/npb-btmz-B-8x4/traces.otf2";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  Result<Trace> t = ReadTrace(path);
  ASSERT_THAT(t, IsOk());
  size_t forks = 0, joins = 0;
  for (DependencyKind k : t->dependencies().kind) forks += k == DependencyKind::kFork, joins += k == DependencyKind::kJoin;
  EXPECT_GT(forks, 100000u);  // 3 workers per team, tens of thousands of parallel regions
  EXPECT_GT(joins, 100000u);
  const WaitStates ws = FindWaitStates(*t, FindCallSites(*t));
  const TimeNs at_barriers = ws.time_ns[static_cast<int>(WaitKind::kWaitAtBarrier)];
  EXPECT_GT(at_barriers, 50 * 1000 * kMs);
  EXPECT_LT(at_barriers, 60 * 1000 * kMs);
  size_t barrier_points = 0;
  for (const SyncPoint& p : ws.sync_points) barrier_points += p.label.find("!$omp implicit barrier") != std::string::npos;
  EXPECT_GE(barrier_points, 10u);  // one per barrier region (and caller)
  TimeNs on_workers = 0;
  for (size_t l = 0; l < t->locations().size(); ++l) {
    if (t->locations()[l].kind == LocationKind::kOpenMpThread) {
      EXPECT_GT(ws.by_location[l], 0) << "location " << l;
    }
  }
  Result<CriticalPath> cp = ComputeCriticalPath(*t);
  ASSERT_THAT(cp, IsOk());
  for (const PathSegment& s : cp->path)
    if (t->location(s.location).kind == LocationKind::kOpenMpThread) on_workers += s.time_ns;
  EXPECT_GT(on_workers, 500 * kMs);
}

}  // namespace
}  // namespace grainscope
