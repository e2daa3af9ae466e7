#include "analysis/critpath/critpath.h"

#include <map>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "format/seedtext/seedtext_reader.h"
#include "model/trace_script.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;

std::string Name(const Trace& t, RegionId r) { return r.valid() ? std::string(t.str(t.region(r).name)) : "-"; }

// rank 0 works 10 and sends; rank 1 waits in MPI_Recv from 0 to 12, then works 5.
Trace Chain() {
  TraceScript s(2);
  MessageId m = s.Message(0, 1);
  s.Work(0, "produce", 0, 10);
  s.Send(0, m, 10);
  s.Recv(1, m, 0, 12);
  s.Work(1, "consume", 12, 17);
  return s.Finish();
}

TEST(CriticalPath, ChainCrossesTheMessage) {
  Trace t = Chain();
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, 15);  // 10 + 5: the 12 ns spent waiting in MPI_Recv is not work
  EXPECT_EQ(cp->measured_ns, 17);
  EXPECT_EQ(cp->end_location, LocationId(1));
  ASSERT_EQ(cp->path.size(), 2u);
  EXPECT_EQ(cp->path[0].location, LocationId(0));
  EXPECT_EQ(Name(t, cp->path[0].region), "produce");
  EXPECT_EQ(cp->path[0].start_ns, 0);
  EXPECT_EQ(cp->path[0].end_ns, 10);
  EXPECT_EQ(cp->path[1].location, LocationId(1));
  EXPECT_EQ(Name(t, cp->path[1].region), "consume");
  EXPECT_EQ(cp->path[1].time_ns, 5);
  EXPECT_DOUBLE_EQ(cp->transfer_efficiency, 15.0 / 17.0);
  ASSERT_EQ(cp->profile.size(), 2u);
  EXPECT_EQ(Name(t, cp->profile[0].region), "produce");
  EXPECT_DOUBLE_EQ(cp->profile[0].fraction, 10.0 / 15.0);
}

// Issue 33: one function defined twice (two region references, as two OTF2 files of a run may
// hold) is one row of the path's profile, under its first definition.
TEST(CriticalPath, ProfileAggregatesRegionsByNameAndRole) {
  TraceScript s(2);
  MessageId m = s.Message(0, 1);
  s.Work(0, "work", 0, 10);
  s.Send(0, m, 10);
  s.Recv(1, m, 0, 12);
  const RegionId again = s.builder().AddRegion("work", RegionRole::kFunction, 99);
  s.builder().Enter(s.loc(1), 12, again);
  s.builder().Leave(s.loc(1), 17, again);
  Trace t = s.Finish();
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  ASSERT_EQ(cp->path.size(), 2u);
  EXPECT_NE(cp->path[0].region, cp->path[1].region);  // the path keeps each segment's own region
  ASSERT_EQ(cp->profile.size(), 1u);
  EXPECT_EQ(cp->profile[0].region, cp->path[0].region);
  EXPECT_EQ(cp->profile[0].time_ns, 15);
}

// A rendezvous send (1 MiB, above the eager limit) entered at 0 on rank 0 waits in MPI_Send
// until rank 1, busy until 90, posts its receive; the transfer takes 10. Without the rendezvous
// edge the path is rank 0's MPI_Send, 100 ns of "work"; with it, rank 1's work.
Trace RendezvousSend(bool edges) {
  TraceScript s(2);
  if (edges) s.builder().SetEagerLimit(4096, "test");
  MessageId m = s.Message(0, 1, 0, 1 << 20);
  s.Send(0, m, 0, 100);
  s.Work(0, "after", 100, 105);
  s.Work(1, "late work", 0, 90);
  s.Recv(1, m, 90, 100);
  return s.Finish();
}

TEST(CriticalPath, RendezvousSendWaitsForTheLateReceiver) {
  for (const bool edges : {false, true}) {
    Trace t = RendezvousSend(edges);
    ASSERT_EQ(t.dependencies().size(), edges ? 1u : 0u);
    Result<CriticalPath> cp = ComputeCriticalPath(t);
    ASSERT_THAT(cp, IsOk());
    std::map<std::string, TimeNs> on_path;
    for (const PathSegment& seg : cp->path) on_path[Name(t, seg.region)] += seg.time_ns;
    if (!edges) {
      EXPECT_EQ(on_path["MPI_Send"], 100);
      continue;
    }
    // Rank 0's chain is 90 (the posted receive releases the send) + 5 = 95; rank 1's, its work and
    // the receive's transfer, 100: the path ends there and holds no MPI_Send.
    EXPECT_EQ(on_path["late work"], 90);
    EXPECT_EQ(on_path["MPI_Recv"], 10);
    EXPECT_EQ(on_path.count("MPI_Send"), 0u);
    EXPECT_EQ(cp->length_ns, 100);
  }
}

TEST(CriticalPath, LatencyIsAddedOnEveryEdge) {
  Trace t = Chain();
  Result<CriticalPath> cp = ComputeCriticalPath(t, CritPathOptions{2});
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, 17);
  EXPECT_EQ(cp->transfer_ns, 2);
}

// rank 0 forks work to 1 and 2 (10 and 20 ns), joins their results, then works 1 ns.
TEST(CriticalPath, ForkJoinFollowsTheLongerBranch) {
  TraceScript s(3);
  MessageId to1 = s.Message(0, 1), to2 = s.Message(0, 2), from1 = s.Message(1, 0), from2 = s.Message(2, 0);
  s.Work(0, "split", 0, 5);
  s.Send(0, to1, 5);
  s.Send(0, to2, 5);
  s.Recv(0, from1, 5, 15);
  s.Recv(0, from2, 15, 25);
  s.Work(0, "merge", 25, 26);
  s.Recv(1, to1, 0, 5);
  s.Work(1, "short", 5, 15);
  s.Send(1, from1, 15);
  s.Recv(2, to2, 0, 5);
  s.Work(2, "long", 5, 25);
  s.Send(2, from2, 25);
  Trace t = s.Finish();
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, 26);
  std::vector<std::string> regions;
  for (const PathSegment& p : cp->path) regions.push_back(Name(t, p.region));
  EXPECT_THAT(regions, ::testing::ElementsAre("split", "long", "merge"));
  // the short branch's message is not on the path: its grain has 10 ns of slack
  for (const GrainSlack& g : cp->slack) {
    const std::string name = Name(t, g.grain.region);
    if (name == "short") {
      EXPECT_EQ(g.slack_ns, 10);
    }
    if (name == "long" || name == "split" || name == "merge") {
      EXPECT_EQ(g.slack_ns, 0) << name;
    }
  }
}

TEST(CriticalPath, PipelineOfKStages) {
  constexpr int kStages = 5;
  constexpr TimeNs kW = 100;
  TraceScript s(kStages);
  std::vector<MessageId> m;
  for (int k = 0; k + 1 < kStages; ++k) m.push_back(s.Message(k, k + 1));
  for (int k = 0; k < kStages; ++k) {
    const TimeNs start = k * (kW + 3);
    if (k > 0) s.Recv(k, m[k - 1], 0, start);
    s.Work(k, "stage", start, start + kW);
    if (k + 1 < kStages) s.Send(k, m[k], start + kW, start + kW + 1);
  }
  Trace t = s.Finish();
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, kStages * kW);  // the 3 ns gaps are waiting/transfer, not work
  EXPECT_EQ(cp->path.size(), static_cast<size_t>(kStages));
}

// OTF-CPT's imbalance pattern: rank r works W*(1+2r), then a barrier, repeated.
TEST(CriticalPath, BarrierImbalanceClosedForm) {
  for (int size : {2, 4, 7}) {
    constexpr TimeNs kW = 1000;
    constexpr int kIterations = 3;
    TraceScript s(size);
    const TimeNs period = kW * (2 * size - 1);
    for (int it = 0; it < kIterations; ++it) {
      CollectiveId c = s.Collective(CollectiveOp::kBarrier);
      for (int r = 0; r < size; ++r) {
        const TimeNs start = it * period;
        s.Work(r, "work", start, start + kW * (1 + 2 * r));
        s.Join(r, c, start + kW * (1 + 2 * r), (it + 1) * period);
      }
    }
    Trace t = s.Finish();
    Result<CriticalPath> cp = ComputeCriticalPath(t);
    ASSERT_THAT(cp, IsOk());
    EXPECT_EQ(cp->length_ns, kIterations * period) << size;
    EXPECT_DOUBLE_EQ(cp->load_balance, static_cast<double>(size) / (2 * size - 1)) << size;
    EXPECT_DOUBLE_EQ(cp->serialization_efficiency, 1.0);
    EXPECT_DOUBLE_EQ(cp->transfer_efficiency, 1.0);
    for (const PathSegment& p : cp->path) EXPECT_EQ(p.location, s.loc(size - 1));
    ASSERT_EQ(cp->imbalance.size(), 1u);
    // on the path: 3 * W(2size-1); mean over ranks: 3 * W * size
    EXPECT_EQ(cp->imbalance[0].imbalance_ns, kIterations * kW * (size - 1));
  }
}

TEST(CriticalPath, EqualArrivalsTieToTheLowestLocation) {
  TraceScript s(3);
  CollectiveId c = s.Collective(CollectiveOp::kAllreduce);
  s.Work(0, "a", 0, 10);
  s.Work(1, "b", 0, 10);
  s.Work(2, "c", 0, 4);
  s.Join(0, c, 10, 11);
  s.Join(1, c, 10, 11);
  s.Join(2, c, 4, 11);
  s.Work(2, "after", 11, 15);
  Trace t = s.Finish();
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  // rank 2 waited 6 of its 7 ns in the allreduce; its last 1 ns (after everyone had arrived) is
  // work, but the chain from the latest arrivals (10) is longer: 10 + 4.
  EXPECT_EQ(cp->length_ns, 14);
  EXPECT_EQ(cp->end_location, LocationId(2));
  ASSERT_GE(cp->path.size(), 2u);
  EXPECT_EQ(cp->path[0].location, LocationId(0));  // rank 0 and 1 tie; rank 0 wins
}

// A member that begins after the root waits for the root only: with a latency its end takes the
// root's value plus the latency, and the path goes back to the root, not to its own begin.
TEST(CriticalPath, ABroadcastsPathGoesToTheRootWhateverTheOthersBegin) {
  TraceScript s(2);
  CollectiveId c = s.Collective(CollectiveOp::kBroadcast, /*root=*/0);
  s.Work(0, "root work", 0, 100);
  s.Join(0, c, 100, 101);
  s.Work(1, "other work", 0, 110);
  s.Join(1, c, 110, 111);
  Trace t = s.Finish();
  Result<CriticalPath> cp = ComputeCriticalPath(t, {/*message_latency_ns=*/25});
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, 125);  // the root's 100 + the latency: rank 1's 110 is no input
  EXPECT_EQ(cp->transfer_ns, 25);
  ASSERT_FALSE(cp->path.empty());
  EXPECT_EQ(cp->path.front().location, LocationId(0));
  TimeNs on_path = 0;
  for (const PathSegment& p : cp->path) on_path += p.time_ns;
  EXPECT_EQ(on_path + cp->transfer_ns, cp->length_ns);
}

TEST(CriticalPath, BroadcastWaitsForTheRootOnly) {
  TraceScript s(3);
  CollectiveId c = s.Collective(CollectiveOp::kBroadcast, /*root=*/1);
  s.Work(0, "early", 0, 2);
  s.Join(0, c, 2, 10);
  s.Work(1, "root work", 0, 10);
  s.Join(1, c, 10, 10);
  s.Work(2, "late", 0, 30);
  s.Join(2, c, 30, 31);
  s.Work(0, "tail", 10, 15);
  s.Work(1, "tail", 10, 15);
  s.Work(2, "tail", 31, 36);
  Trace t = s.Finish();
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  // rank 2 arrived long after the root: its 1 ns inside the broadcast is work, not waiting, so
  // its own 30 + 1 + 5 ns; ranks 0 and 1 follow the root: 10 + 5.
  EXPECT_EQ(cp->length_ns, 36);
  EXPECT_EQ(cp->end_location, LocationId(2));
  EXPECT_EQ(cp->compute_ns[0], 2 + 5);  // its 8 ns in the broadcast were waiting
}

TEST(CriticalPath, ReduceRootWaitsForTheLatestSender) {
  TraceScript s(3);
  CollectiveId c = s.Collective(CollectiveOp::kReduce, /*root=*/0);
  s.Work(0, "root", 0, 1);
  s.Join(0, c, 1, 20);
  s.Work(1, "r1", 0, 5);
  s.Join(1, c, 5, 6);
  s.Work(2, "r2", 0, 19);
  s.Join(2, c, 19, 20);
  s.Work(0, "tail", 20, 25);
  Trace t = s.Finish();
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, 19 + 5);
  EXPECT_EQ(cp->path.front().location, LocationId(2));
}

TEST(CriticalPath, CrossingMessagesAreACycle) {
  TraceScript s(2);
  MessageId a = s.Message(0, 1), b = s.Message(1, 0);
  s.Recv(0, b, 0, 5);
  s.Send(0, a, 6);
  s.Recv(1, a, 0, 5);
  s.Send(1, b, 6);
  Trace t = s.Finish();
  EXPECT_THAT(ComputeCriticalPath(t),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("happens-before graph has a cycle")));
}

TEST(CriticalPath, SeedTraceArcs) {
  // grain 0 (10 ms) sends to grain 1 on another processor (20 ms) which sends to grain 2 (5 ms)
  // back on the first processor; grain 3 (50 ms) on the first processor is independent.
  const char* text =
      " start 0 0 0\n stop 0 0 10\n sendBegin a 0 10\n sendEnd a 0 11\n"
      " recvBegin a 1 0\n recvEnd a 1 11\n start 1 1 11\n stop 1 1 31\n sendBegin b 1 31\n sendEnd b 1 31\n"
      " start 0 3 11\n stop 0 3 61\n recvBegin b 2 61\n recvEnd b 2 61\n start 0 2 61\n stop 0 2 66\n";
  Result<Trace> t = ReadSeedText(text, "t.txt");
  ASSERT_THAT(t, IsOk());
  Result<CriticalPath> cp = ComputeCriticalPath(*t);
  ASSERT_THAT(cp, IsOk());
  // processor 0 is sequential: 10 + 1 (send call) + 50 + 5; grain 1's chain (10 + 20) is shorter.
  EXPECT_EQ(cp->length_ns, 66'000'000);
  // grain 1 starts at cp 10 ms (arc 'a' leaves at its sendBegin) and may start as late as
  // 66 - 5 - 20 = 41 ms without lengthening the path.
  for (const GrainSlack& g : cp->slack) {
    if (t->region(g.grain.region).external_id == 1) {
      EXPECT_EQ(g.slack_ns, 31'000'000);
    }
  }
}

// Thread 1 sets up (0-10), creates thread 0 (10-11), works (11-20) and joins it (20-100), then
// finishes (100-105); thread 0 works 11-100. Thread 0 comes first, so the sweep meets the fork
// edge before its source exists and must wait for thread 1.
Trace ForkJoinThreads(bool with_edges) {
  TraceScript s(2, LocationKind::kThread);
  s.Work(1, "setup", 0, 10);
  s.Work(1, "pthread_create", 10, 11);
  s.Work(1, "main_work", 11, 20);
  s.Work(1, "pthread_join", 20, 100);
  s.Work(1, "finish", 100, 105);
  s.Work(0, "worker", 11, 100);
  if (with_edges) {
    s.builder().AddDependency(DependencyKind::kFork, s.loc(1), 3, s.loc(0), 0);  // create's leave -> worker
    s.builder().AddDependency(DependencyKind::kJoin, s.loc(0), 1, s.loc(1), 7);  // worker's end -> join's leave
  }
  return s.Finish();
}

TEST(CriticalPath, JoinEdgePutsTheJoinedThreadsWorkOnThePath) {
  Trace t = ForkJoinThreads(true);
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_THAT(cp, IsOk());
  EXPECT_EQ(cp->length_ns, 105);
  EXPECT_EQ(cp->end_location, LocationId(1));
  ASSERT_EQ(cp->path.size(), 4u);
  EXPECT_EQ(Name(t, cp->path[0].region), "setup");
  EXPECT_EQ(Name(t, cp->path[1].region), "pthread_create");
  EXPECT_EQ(cp->path[2].location, LocationId(0));
  EXPECT_EQ(Name(t, cp->path[2].region), "worker");
  EXPECT_EQ(cp->path[2].time_ns, 89);
  EXPECT_EQ(Name(t, cp->path[3].region), "finish");
  EXPECT_EQ(cp->compute_ns[1], 25);  // the 80 ns in pthread_join are waiting, not work
  // Backward along the edges: main_work may start as late as 91 without delaying the join.
  for (const GrainSlack& g : cp->slack) {
    const std::string name(Name(t, g.grain.region));
    if (name == "main_work" || name == "worker") {
      EXPECT_EQ(g.slack_ns, name == "worker" ? 0 : 80) << name;
    }
  }

  // Without the edges the join is work of thread 1, and the path never leaves it.
  Trace plain = ForkJoinThreads(false);
  Result<CriticalPath> alone = ComputeCriticalPath(plain);
  ASSERT_THAT(alone, IsOk());
  for (const PathSegment& s : alone->path) EXPECT_EQ(s.location, LocationId(1));
}

TEST(CriticalPath, DependencyCycleIsReported) {
  TraceScript s(2, LocationKind::kThread);
  s.Work(0, "a", 0, 10);
  s.Work(1, "b", 0, 10);
  s.builder().AddDependency(DependencyKind::kLockHandover, s.loc(0), 1, s.loc(1), 0);
  s.builder().AddDependency(DependencyKind::kLockHandover, s.loc(1), 1, s.loc(0), 0);
  Trace t = s.Finish();
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_FALSE(cp.ok());
  EXPECT_THAT(cp.status().message(), HasSubstr("lock_handover dependency"));
}

}  // namespace
}  // namespace grainscope
