#include "analysis/replay/replay.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "analysis/replay/clc.h"
#include "base/status_matchers.h"
#include "format/seedtext/seedtext_reader.h"
#include "model/trace_script.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;

constexpr TimeNs kW = 1000;

// R round trips: rank 0 sends a ping, waits for the pong; rank 1 the other way round. Each side
// computes 100 ns between messages; the network took 50 ns per message.
Trace PingPong(int rounds) {
  TraceScript s(2);
  TimeNs t = 0;
  for (int r = 0; r < rounds; ++r) {
    MessageId ping = s.Message(0, 1), pong = s.Message(1, 0);
    s.Work(0, "compute", t, t + 100);
    s.Send(0, ping, t + 100);
    s.Recv(1, ping, t, t + 150);
    s.Work(1, "compute", t + 150, t + 250);
    s.Send(1, pong, t + 250);
    s.Recv(0, pong, t + 100, t + 300);
    t += 300;
  }
  return s.Finish();
}

Trace BarrierImbalance(int size, int iterations) {
  TraceScript s(size);
  const TimeNs period = kW * (2 * size - 1);
  for (int it = 0; it < iterations; ++it) {
    CollectiveId c = s.Collective(CollectiveOp::kBarrier);
    for (int r = 0; r < size; ++r) {
      const TimeNs start = it * period;
      s.Work(r, "work", start, start + kW * (1 + 2 * r));
      s.Join(r, c, start + kW * (1 + 2 * r), (it + 1) * period);
    }
  }
  return s.Finish();
}

TEST(Replay, IdentityReproducesEveryTimestamp) {
  std::vector<Trace> traces;
  traces.push_back(PingPong(5));
  traces.push_back(BarrierImbalance(4, 3));
  Result<Trace> seed = ReadSeedText(
      " start 1 1 290\n stop 1 1 310\n sendBegin a 1 310\n sendEnd a 1 312\n recvBegin a 2 0\n"
      " recvEnd a 2 600\n start 2 2 600\n stop 2 2 900\n",
      "t.txt");
  ASSERT_THAT(seed, IsOk());
  traces.push_back(std::move(*seed));
  for (const Trace& t : traces) {
    Result<ReplayResult> r = Replay(t, WhatIf{});
    ASSERT_THAT(r, IsOk());
    EXPECT_EQ(r->max_deviation_ns, 0);
    EXPECT_EQ(r->predicted_ns, r->measured_ns);
    for (uint32_t l = 0; l < t.locations().size(); ++l)
      EXPECT_THAT(r->times.at(LocationId(l)), ::testing::ElementsAreArray(t.events(LocationId(l)).time));
  }
}

// MPI_Init as libgrainscope-mpi records it: a region of role other holding an all-to-all
// collective. Rank 1 was launched 300 ns after rank 0; both left at 1000 (the start-up's own 700 ns
// after the last arrival), worked 100 ns and met in a barrier call of 50 ns. A collective model
// replaces the barrier's cost, not the start-up's: zero-cost collectives end the run at 1100, not
// at 400 (before, MPI_Init's 700 ns vanished with the barrier's 50).
Trace StartUpThenBarrier() {
  TraceScript s(2);
  const RegionId init = s.Region("MPI_Init", RegionRole::kOther);
  const CollectiveId start = s.Collective(CollectiveOp::kOther);
  const CollectiveId barrier = s.Collective(CollectiveOp::kBarrier);
  for (int r = 0; r < 2; ++r) {
    const TimeNs entry = r == 0 ? 0 : 300;
    s.builder().Enter(s.loc(r), entry, init);
    s.builder().CollBegin(s.loc(r), entry, start, 0, 0);
    s.builder().CollEnd(s.loc(r), 1000, start);
    s.builder().Leave(s.loc(r), 1000, init);
    s.Work(r, "work", 1000, 1100);
    s.Join(r, barrier, 1100, 1150);
  }
  return s.Finish();
}

TEST(Replay, CollectiveModelsLeaveMpiInitsCollectiveMeasured) {
  const Trace t = StartUpThenBarrier();
  WhatIf zero;
  zero.collective.measured = false;
  zero.collective.fan_in = zero.collective.fan_out = CollectivePhase::kZero;
  Result<ReplayResult> r = Replay(t, zero);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->measured_ns, 1150);
  EXPECT_EQ(r->predicted_ns, 1100);
}

// --collective-speed 2 on the same trace: the barrier call's 50 ns become 25; MPI_Init's start-up
// collective keeps its 700 ns, as under a model.
TEST(Replay, CollectiveSpeedScalesCollectiveCallsOnly) {
  const Trace t = StartUpThenBarrier();
  WhatIf faster;
  faster.collective.speed = 2;
  EXPECT_FALSE(faster.identity());
  Result<ReplayResult> r = Replay(t, faster);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->predicted_ns, 1125);
}

TEST(Replay, PingPongShiftsByTwoLatenciesPerRoundTrip) {
  constexpr int kRounds = 7;
  constexpr TimeNs kL = 400;
  Trace t = PingPong(kRounds);
  WhatIf zero;
  zero.network.kind = NetworkKind::kZero;
  WhatIf lat = zero;
  lat.network.kind = NetworkKind::kLatencyBandwidth;
  lat.network.latency_ns = kL;
  Result<ReplayResult> a = Replay(t, zero), b = Replay(t, lat);
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(b, IsOk());
  EXPECT_EQ(a->predicted_ns, kRounds * 200);  // only the computing is left
  EXPECT_EQ(b->predicted_ns - a->predicted_ns, 2 * kL * kRounds);
}

TEST(Replay, PipelineOfKStagesWithLatency) {
  constexpr int kStages = 6;
  constexpr TimeNs kL = 250;
  TraceScript s(kStages);
  std::vector<MessageId> m;
  for (int k = 0; k + 1 < kStages; ++k) m.push_back(s.Message(k, k + 1));
  for (int k = 0; k < kStages; ++k) {
    const TimeNs start = k * (kW + 10);
    if (k > 0) s.Recv(k, m[k - 1], 0, start);
    s.Work(k, "stage", start, start + kW);
    if (k + 1 < kStages) s.Send(k, m[k], start + kW);
  }
  Trace t = s.Finish();
  WhatIf w;
  w.network.kind = NetworkKind::kLatencyBandwidth;
  w.network.latency_ns = kL;
  Result<ReplayResult> r = Replay(t, w);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->predicted_ns, kStages * kW + (kStages - 1) * kL);
}

TEST(Replay, BarrierProgramWithOneLocationTwiceAsFast) {
  constexpr int kSize = 4, kIterations = 3;
  Trace t = BarrierImbalance(kSize, kIterations);
  WhatIf w;
  w.location_speed.push_back({"rank 3", 2.0});
  Result<ReplayResult> r = Replay(t, w);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->measured_ns, kIterations * 7 * kW);
  // rank 3's 7 W become 3.5 W; rank 2's 5 W now set the pace of every iteration
  EXPECT_EQ(r->predicted_ns, kIterations * 5 * kW);
  WhatIf by_region;
  by_region.region_speed.push_back({"work", 7.0});
  Result<ReplayResult> q = Replay(t, by_region);
  ASSERT_THAT(q, IsOk());
  EXPECT_EQ(q->predicted_ns, kIterations * kW);
}

TEST(Replay, RemovedRegionTakesNoTime) {
  TraceScript s(1);
  s.Work(0, "setup", 0, 50);
  s.Enter(0, "solve", 50);
  s.Work(0, "io", 60, 90);
  s.Leave(0, "solve", 100);
  Trace t = s.Finish();
  WhatIf w;
  w.removed_regions = {"io"};
  Result<ReplayResult> r = Replay(t, w);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->predicted_ns, 70);
  w.removed_regions = {"solve"};  // and everything inside it
  r = Replay(t, w);
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->predicted_ns, 50);
  w.removed_regions = {"nope"};
  EXPECT_THAT(Replay(t, w), StatusIs(StatusCode::kNotFound, HasSubstr("no region named 'nope'")));
}

TEST(NetworkModel, LogGPEagerAndRendezvous) {
  NetworkModel m;
  m.kind = NetworkKind::kLogGP;  // LogGOPSim defaults: L=2500 o=1500 G=6 O=0 S=65535
  EXPECT_EQ(m.Transfer(1), 2500 + 1500);
  EXPECT_EQ(m.Transfer(1001), 2500 + 6 * 1000 + 1500);
  EXPECT_EQ(m.Transfer(65536), 2500 + 6 * 65535 + 1500 + 2 * (2500 + 1500));
  EXPECT_EQ(m.SendOverhead(100), 1500);
  ASSERT_THAT(ParseLogGP("L=100,O=0.5", m), IsOk());
  NetworkModel units;
  ASSERT_THAT(ParseLogGP("L=2.5us,o=1500ns,g=1e3", units), IsOk());  // durations take units
  EXPECT_EQ(units.L, 2500);
  EXPECT_EQ(units.o, 1500);
  EXPECT_EQ(units.g, 1000);
  EXPECT_EQ(m.L, 100);
  EXPECT_EQ(m.SendOverhead(101), 1500 + 50);
  EXPECT_THAT(ParseLogGP("X=1", m), StatusIs(StatusCode::kInvalidArgument, HasSubstr("unknown LogGP parameter 'X'")));
}

TEST(CollectiveModel, DimemasPhases) {
  CollectiveModel c;
  c.measured = false;
  c.latency_ns = 100;
  c.bytes_per_ns = 2;
  EXPECT_EQ(c.Cost(8, 1000, 1000), 3 * (100 + 500) + 3 * (100 + 500));  // log2 8 = 3 each way
  c.fan_in = CollectivePhase::kLinear;
  c.fan_out = CollectivePhase::kConstant;
  EXPECT_EQ(c.Cost(8, 0, 0), 7 * 100 + 100);
  c.fan_in = c.fan_out = CollectivePhase::kZero;
  EXPECT_EQ(c.Cost(8, 1000, 1000), 0);
}

TEST(ControlledLogicalClock, RepairsReceivesBeforeSends) {
  // rank 1's clock runs 100 ns behind: it "receives" at 50 a message sent at 120.
  TraceScript s(2);
  MessageId m = s.Message(0, 1);
  s.Work(0, "a", 0, 120);
  s.Send(0, m, 120);
  s.Work(1, "b", 0, 30);
  s.Work(1, "c", 30, 40);
  s.Recv(1, m, 40, 50);
  s.Work(1, "d", 50, 80);
  Trace t = s.Finish();
  EXPECT_EQ(CountClockViolations(t).messages, 1u);
  EXPECT_EQ(CountClockViolations(t).collectives, 0u);
  Result<ClcResult> clc = ControlledLogicalClock(t, ClcOptions{5});
  ASSERT_THAT(clc, IsOk());
  EXPECT_EQ(clc->violations.total(), 1u);
  Result<Trace> fixed = t.Retimed(std::move(clc->times), "+clc");
  ASSERT_THAT(fixed, IsOk());
  EXPECT_EQ(CountClockViolations(*fixed).total(), 0u);
  const EventColumns& r1 = fixed->events(LocationId(1));
  const MessageTable& msgs = fixed->messages();
  EXPECT_EQ(r1.time[msgs.recv_event[0]], 125);  // send + min latency
  // after the jump the local intervals are kept: "d" still lasts 30 ns
  EXPECT_EQ(r1.time.back() - r1.time[r1.size() - 2], 30);
  // before it, the events were ramped up, in order, never earlier than measured
  for (size_t i = 1; i < r1.size(); ++i) EXPECT_LE(r1.time[i - 1], r1.time[i]);
  for (size_t i = 0; i < r1.size(); ++i) EXPECT_GE(r1.time[i], t.events(LocationId(1)).time[i]);
  EXPECT_GT(r1.time[1], 30);  // "b"'s end moved toward the jump
}

// Thread 1 creates thread 0 at 10-11 and joins it at 20-100; thread 0 works 11-100 (a fork and a
// join dependency edge).
Trace ForkJoinThreads() {
  TraceScript s(2, LocationKind::kThread);
  s.Work(1, "pthread_create", 0, 11);
  s.Work(1, "main_work", 11, 20);
  s.Work(1, "pthread_join", 20, 100);
  s.Work(1, "finish", 100, 105);
  s.Work(0, "worker", 11, 100);
  s.builder().AddDependency(DependencyKind::kFork, s.loc(1), 1, s.loc(0), 0);
  s.builder().AddDependency(DependencyKind::kJoin, s.loc(0), 1, s.loc(1), 5);
  return s.Finish();
}

TEST(Replay, DependencyEdgesCarryASpeedUpAcrossThreads) {
  Trace t = ForkJoinThreads();
  Result<ReplayResult> same = Replay(t, WhatIf{});
  ASSERT_THAT(same, IsOk());
  EXPECT_EQ(same->max_deviation_ns, 0);
  // The worker twice as fast (89 -> 45 ns): the join returns at 56, not 100; the main thread's
  // 80 ns in pthread_join were waiting for it.
  WhatIf w;
  w.region_speed.push_back({"worker", 2.0});
  Result<ReplayResult> fast = Replay(t, w);
  ASSERT_THAT(fast, IsOk());
  EXPECT_EQ(fast->times.at(LocationId(1), 5), 56);
  EXPECT_EQ(fast->predicted_ns, 61);
}

TEST(ControlledLogicalClock, MovesAJoinAfterTheJoinedThreadsEnd) {
  TraceScript s(2, LocationKind::kThread);
  s.Work(0, "worker", 0, 50);
  s.Work(1, "pthread_join", 10, 40);  // returned before the worker ended, as recorded
  s.Work(1, "after", 40, 60);
  s.builder().AddDependency(DependencyKind::kJoin, s.loc(0), 1, s.loc(1), 1);
  Trace t = s.Finish();
  EXPECT_EQ(t.diagnostics().Count(Diag::kDependenciesBackInTime), 1u);
  Result<ClcResult> c = ControlledLogicalClock(t);
  ASSERT_THAT(c, IsOk());
  EXPECT_GE(c->times.at(LocationId(1), 1), 50);
}

}  // namespace
}  // namespace grainscope

namespace grainscope {
namespace {

// latbw fitted to the trace: per size the fastest transfer (100 ns + 0.5 ns/byte); the slower
// messages of each size (a receiver that came late) do not move the line.
TEST(NetworkFit, FastestTransferPerSizeGivesLatencyAndBandwidth) {
  TraceScript s(2);
  TimeNs t = 0;
  for (uint64_t bytes : {0, 1000, 2000}) {
    for (TimeNs extra : {0, 400}) {
      const MessageId m = s.Message(0, 1, 0, bytes);
      s.Send(0, m, t);
      s.Recv(1, m, t, t + 100 + static_cast<TimeNs>(bytes / 2) + extra);
      t += 10'000;
    }
  }
  const NetworkFit fit = FitLatencyBandwidth(s.Finish());
  EXPECT_EQ(fit.messages, 6u);
  EXPECT_EQ(fit.sizes, 3u);
  EXPECT_EQ(fit.latency_ns, 100);
  EXPECT_DOUBLE_EQ(fit.bytes_per_ns, 2.0);

  TraceScript one_size(2);
  const MessageId m = one_size.Message(0, 1, 0, 64);
  one_size.Send(0, m, 0);
  one_size.Recv(1, m, 0, 250);
  const NetworkFit constant = FitLatencyBandwidth(one_size.Finish());
  EXPECT_EQ(constant.latency_ns, 250);
  EXPECT_EQ(constant.bytes_per_ns, 0.0);  // unlimited: nothing to fit a slope to

  EXPECT_EQ(FitLatencyBandwidth(BarrierImbalance(2, 1)).messages, 0u);
}

}  // namespace
}  // namespace grainscope
