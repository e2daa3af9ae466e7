// One happens-before graph (model/hb_graph.h): a dependency edge a reader adds, of a kind no
// analysis names, changes the answer of every analysis that reads edges — critical path, replay,
// clock condition, controlled logical clock, wait states, characterisation, task graph and time
// classes (report, gantt, html) — with no analysis knowing the kind.
#include <algorithm>

#include <gtest/gtest.h>

#include "analysis/critpath/critpath.h"
#include "analysis/regions/time_classes.h"
#include "analysis/replay/clc.h"
#include "analysis/replay/replay.h"
#include "analysis/taskgraph/taskgraph.h"
#include "analysis/waits/call_sites.h"
#include "analysis/waits/characterize.h"
#include "analysis/waits/wait_states.h"
#include "model/trace_script.h"

namespace grainscope {
namespace {

// Location 0 runs grain "producer" from 0 to 25. Location 1 runs grain "early" from 2 to 5 and
// grain "consumer" from 26 to 30. With `edge`, the consumer's start depends on the producer's end
// (a GPU kernel on a synchronised stream, a reader's own kind: kOther); `target` moves the
// consumer's start, and so the edge's target, to another time.
Trace Scenario(bool edge, TimeNs target = 26) {
  TraceScript s(2, LocationKind::kThread);
  s.Work(0, "producer", 0, 25, RegionRole::kGrain);
  s.Work(1, "early", 2, 5, RegionRole::kGrain);
  s.Work(1, "consumer", target, target + 4, RegionRole::kGrain);
  if (edge) s.builder().AddDependency(DependencyKind::kOther, s.loc(0), 1, s.loc(1), 2);
  return s.Finish();
}

TimeNs PathTimeIn(const Trace& t, const CriticalPath& cp, std::string_view region) {
  for (const RegionPathTime& p : cp.profile)
    if (p.region.valid() && t.str(t.region(p.region).name) == region) return p.time_ns;
  return 0;
}

TEST(HbEdges, AnEdgeOfAnUnnamedKindReachesTheCriticalPath) {
  const Trace without = Scenario(false), with = Scenario(true);
  Result<CriticalPath> a = ComputeCriticalPath(without), b = ComputeCriticalPath(with);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(PathTimeIn(without, *a, "producer"), 0);  // location 1 alone ends last
  EXPECT_EQ(PathTimeIn(with, *b, "producer"), 25);    // the path passes through the edge
  EXPECT_EQ(PathTimeIn(with, *b, "consumer"), 4);
}

TEST(HbEdges, AnEdgeOfAnUnnamedKindReachesTheReplay) {
  WhatIf faster;
  faster.region_speed.push_back({"producer", 5.0});  // 25 ns -> 5 ns
  Result<ReplayResult> a = Replay(Scenario(false), faster), b = Replay(Scenario(true), faster);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->predicted_ns, 30);  // the consumer never waited for the producer
  EXPECT_LT(b->predicted_ns, 30);  // it waited: a faster producer starts it earlier
  EXPECT_EQ(b->max_deviation_ns, 0);  // and the identity replay still holds
}

TEST(HbEdges, AnEdgeOfAnUnnamedKindReachesTheClockCondition) {
  // The consumer starts at 20, before the producer ended at 25: a violation of the edge.
  const Trace skewed_without = Scenario(false, 20), skewed = Scenario(true, 20);
  EXPECT_EQ(CountClockViolations(skewed_without).total(), 0u);
  EXPECT_EQ(CountClockViolations(skewed).dependencies, 1u);
  Result<ClcResult> a = ControlledLogicalClock(skewed_without), b = ControlledLogicalClock(skewed);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->moved_events, 0u);
  EXPECT_GT(b->moved_events, 0u);  // the consumer is moved after the producer
  EXPECT_GE(b->times.at(LocationId(1))[2], 25);
}

TEST(HbEdges, AnEdgeOfAnUnnamedKindReachesTheWaitStatesAndTheirCauses) {
  const Trace without = Scenario(false), with = Scenario(true);
  const CallSites ca = FindCallSites(without), cb = FindCallSites(with);
  const WaitStates a = FindWaitStates(without, ca, {}), b = FindWaitStates(with, cb, {});
  EXPECT_EQ(a.total_ns, 0);
  ASSERT_EQ(b.instances.size(), 1u);
  EXPECT_EQ(b.instances[0].kind, WaitKind::kDependencyWait);
  EXPECT_EQ(b.instances[0].wait_ns, 20);  // from the early grain's end (5) to the producer's (25)
  EXPECT_EQ(b.instances[0].late, LocationId(0));
  const Characterization c = Characterize(with, cb, b);
  ASSERT_FALSE(c.root_causes.empty());
  EXPECT_EQ(with.str(with.region(c.root_causes[0].region).name), "producer");
}

TEST(HbEdges, AnEdgeOfAnUnnamedKindReachesTheTaskGraph) {
  Result<TaskGraph> a = BuildTaskGraph(Scenario(false)), b = BuildTaskGraph(Scenario(true));
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(a->edges.empty());
  ASSERT_EQ(b->edges.size(), 1u);
  const Trace with = Scenario(true);
  EXPECT_EQ(TaskEdgeLabel(with, b->edges[0]), "(other)");
  EXPECT_EQ(b->edges[0].delay_ns, 1);  // the consumer began 1 ns after the producer ended
}

TEST(HbEdges, AnEdgeOfAnUnnamedKindReachesTheTimeClasses) {
  // Ranks computing outside regions: the time before the consumer is computation, unless the
  // consumer waited for the producer there.
  auto scenario = [](bool edge) {
    TraceScript s(2);
    s.Work(0, "producer", 0, 25);
    s.Work(1, "early", 2, 5);
    s.Work(1, "consumer", 26, 30);
    if (edge) s.builder().AddDependency(DependencyKind::kOther, s.loc(0), 1, s.loc(1), 2);
    return s.Finish();
  };
  const TimeBreakdown a = ComputeTimeBreakdown(scenario(false)), b = ComputeTimeBreakdown(scenario(true));
  EXPECT_EQ(a.locations[1][TimeClass::kThreadSync], 0);
  EXPECT_EQ(b.locations[1][TimeClass::kThreadSync], 20);  // from 5 to the producer's end
  EXPECT_EQ(b.locations[1][TimeClass::kComputation], a.locations[1][TimeClass::kComputation] - 20);
  const Trace with = scenario(true);
  const std::vector<std::vector<BlockedSpan>> spans = ComputeBlockedSpans(with);
  ASSERT_EQ(spans[1].size(), 1u);
  EXPECT_EQ(spans[1][0].start, 5);
  EXPECT_EQ(spans[1][0].stop, 25);
  EXPECT_EQ(BlockedSpanCause(with, spans[1][0]), "dependency");
}

// A scan is a prefix: rank r's result needs ranks 0..r-1, not the ranks after it. Rank 2 arriving
// late keeps no one waiting, and the trace replays without a clock violation (modelled all-to-all
// it had two: ranks 0 and 1 leave before rank 2 arrives).
TEST(HbEdges, ScanIsAPrefixNotAnAllToAll) {
  TraceScript s(3);
  const CollectiveId c = s.Collective(CollectiveOp::kScan);
  s.Join(0, c, 0, 2, "MPI_Scan");
  s.Join(1, c, 0, 3, "MPI_Scan");
  s.Join(2, c, 10, 11, "MPI_Scan");
  const Trace t = s.Finish();
  EXPECT_EQ(CountClockViolations(t).total(), 0u);
  Result<ReplayResult> r = Replay(t, WhatIf{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->max_deviation_ns, 0);
  const CallSites calls = FindCallSites(t);
  EXPECT_EQ(FindWaitStates(t, calls, {}).total_ns, 0);
}

// The prefix follows the communicator's rank order, not the locations': on a communicator that
// lists locations 2, 1, 0, location 2 is rank 0 and everyone waits for it.
TEST(HbEdges, ScanWaitsFollowTheCommunicatorsRankOrder) {
  TraceScript s(3);
  const CommunicatorId reversed = s.Communicator("reversed", {2, 1, 0});
  const CollectiveId c = s.Collective(CollectiveOp::kScan, -1, reversed);
  s.Work(2, "late work", 0, 9);
  s.Join(2, c, 9, 10, "MPI_Scan");  // rank 0
  s.Join(1, c, 3, 11, "MPI_Scan");  // rank 1: waits 9 - 3
  s.Join(0, c, 0, 12, "MPI_Scan");  // rank 2: waits for the later of ranks 0 and 1, 9 - 0
  const Trace t = s.Finish();
  const CallSites calls = FindCallSites(t);
  const WaitStates w = FindWaitStates(t, calls, {});
  ASSERT_EQ(w.instances.size(), 2u);
  for (const WaitInstance& i : w.instances) {
    EXPECT_EQ(i.kind, WaitKind::kEarlyScan);
    EXPECT_EQ(i.late, LocationId(2));
    EXPECT_EQ(i.wait_ns, i.waiter == LocationId(1) ? 6 : 9);
  }
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_TRUE(cp.ok());
  // Rank 0's work is the path (transfer time is not counted without --latency).
  EXPECT_EQ(cp->length_ns, 10);
  EXPECT_TRUE(std::any_of(cp->path.begin(), cp->path.end(), [&](const PathSegment& p) {
    return p.location == LocationId(2) && t.str(t.region(p.region).name) == "late work";
  }));
  Result<ReplayResult> r = Replay(t, WhatIf{});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->max_deviation_ns, 0);
  EXPECT_EQ(CountClockViolations(t).total(), 0u);
}

}  // namespace
}  // namespace grainscope
