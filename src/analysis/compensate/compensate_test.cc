#include "analysis/compensate/compensate.h"

#include <cmath>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "model/trace_script.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;

constexpr TimeNs kO = 10;  // overhead per event

// Compensated time of event e on location l.
TimeNs At(const Compensation& c, int l, EventIndex e) { return c.times.at(LocationId(l), e); }

Compensation CompensateWithO(const Trace& t) {
  Result<Compensation> c = Compensate(t, CompensateOptions{kO});
  EXPECT_THAT(c, IsOk());
  return std::move(c).value();
}

// P1 records 3 events (0, 100, 200) before it sends at 300: its delay at the send is x1 = 30.
// P2 enters the receive as its first event (delay x2 = 10 after that event's overhead) and the
// message arrives at 320 (20 ns after the send).
Trace OneSend(TimeNs recv_enter) {
  TraceScript s(2);
  MessageId m = s.Message(0, 1);
  s.Work(0, "a", 0, 100);
  s.Enter(0, "b", 200);
  s.Send(0, m, 300);  // enter MPI_Send, send, leave: events 3, 4, 5 at 300
  s.Leave(0, "b", 400);
  s.Recv(1, m, recv_enter, 320);
  s.Work(1, "after", 330, 400);
  return s.Finish();
}

TEST(Compensate, LateSenderKeepsPartOfTheWait) {
  // x1 = 30 < x2 + w = 10 + 250: the wait shrinks to w' = w + x2 - x1 = 230 and x2' = x1 = 30
  Trace t = OneSend(50);
  Compensation c = CompensateWithO(t);
  EXPECT_EQ(At(c, 0, 3), 300 - 30);  // the send, delayed by x1
  const TimeNs recv = At(c, 1, 1);
  EXPECT_EQ(320 - recv, 30);                       // x2'
  EXPECT_EQ(recv - At(c, 1, 0) - (20 - kO), 230);  // w': the rest of the receive is its work
}

TEST(Compensate, EarlyEnoughSenderRemovesTheWait) {
  // x1 = 30 >= x2 + w = 10 + 5: without overhead the message was there first: w' = 0, x2' = 15
  Trace t = OneSend(295);
  Compensation c = CompensateWithO(t);
  const TimeNs recv = At(c, 1, 1);
  EXPECT_EQ(320 - recv, 15);
  EXPECT_EQ(recv - At(c, 1, 0), 20 - kO);  // only the receive's own work is left, no waiting
}

TEST(Compensate, ZeroOverheadChangesNothing) {
  Trace t = OneSend(50);
  Result<Compensation> c = Compensate(t, CompensateOptions{0});
  ASSERT_THAT(c, IsOk());
  EXPECT_EQ(c->compensated_ns, c->measured_ns);
  for (uint32_t l = 0; l < 2; ++l)
    EXPECT_THAT(c->times.at(LocationId(l)), ::testing::ElementsAreArray(t.events(LocationId(l)).time));
}

TEST(Compensate, PipelineOfThreeCarriesTheDelay) {
  // Each stage receives (except the first), works, sends. Overhead can only come out of time that
  // passed: segments of zero length (inside the send calls) carry none.
  TraceScript s(3);
  MessageId a = s.Message(0, 1), b = s.Message(1, 2);
  s.Work(0, "w", 0, 100);
  s.Send(0, a, 150);  // x = 20 at the send (two segments of 100 and 50 ns before it)
  s.Recv(1, a, 0, 160);
  s.Work(1, "w", 200, 300);
  s.Send(1, b, 350);
  s.Recv(2, b, 0, 360);
  s.Work(2, "w", 400, 500);
  Trace t = s.Finish();
  Compensation c = CompensateWithO(t);
  EXPECT_EQ(At(c, 0, 3), 150 - 20);
  EXPECT_EQ(At(c, 1, 1), 160 - 20);  // stage 1 waited for stage 0: x2' = x1 = 20
  EXPECT_EQ(At(c, 1, 6), 350 - 50);  // + its own 3 segments
  EXPECT_EQ(At(c, 2, 1), 360 - 50);
  EXPECT_EQ(c.compensated_ns, 500 - 70);
  // Subtracting only each location's own events' overhead misses the inherited delay.
  EXPECT_EQ(c.naive_ns, 500 - 5 * kO);
}

TEST(Compensate, BarrierTakesTheSmallestDelay) {
  // rank 0: 4 events of work before the barrier (x = 40); rank 1: 1 event (x = 10), waits.
  TraceScript s(2);
  CollectiveId c = s.Collective(CollectiveOp::kBarrier);
  s.Work(0, "w", 0, 100);
  s.Work(0, "w", 200, 300);
  s.Join(0, c, 400, 410);
  s.Join(1, c, 50, 410);
  Trace t = s.Finish();
  Compensation comp = CompensateWithO(t);
  // rank 0 begins (event 5 at 400) with x = 40 -> 360; its end follows after the 10 ns transfer.
  EXPECT_EQ(At(comp, 0, 5), 400 - 40);
  EXPECT_EQ(At(comp, 0, 6), 410 - 40);
  // rank 1 waited: x' = min over (x_j + w_j) = rank 0's 40
  EXPECT_EQ(At(comp, 1, 2), 410 - 40);
}

TEST(Compensate, BroadcastFollowsTheRoot) {
  TraceScript s(2);
  CollectiveId c = s.Collective(CollectiveOp::kBroadcast, /*root=*/0);
  s.Work(0, "w", 0, 100);
  s.Work(0, "w", 100, 200);
  s.Join(0, c, 300, 305);  // root: x = 30 at its begin
  s.Join(1, c, 10, 310);   // waited for the root
  Trace t = s.Finish();
  Compensation comp = CompensateWithO(t);
  EXPECT_EQ(At(comp, 1, 2), 310 - 30);
}

TEST(Compensate, ReadsTheRecordersDecimalCalibrationExactly) {
  // The recorder writes the calibration with two decimals (src/record/runtime.cc).
  for (const auto& [text, ns] : {std::pair{"12.34", 12.34}, {"12.50", 12.5}, {"9", 9.0}}) {
    TraceScript s(1);
    s.Work(0, "w", 0, 100);
    s.builder().AddMetadata("overhead_per_event_ns", text);
    Trace t = s.Finish();
    Result<Compensation> c = Compensate(t);
    ASSERT_TRUE(c.ok()) << text << ": " << c.status().message();
    EXPECT_DOUBLE_EQ(c->overhead_per_event_ns, ns) << text;
  }
}

TEST(Compensate, FractionalOverheadAddsUpOverSegments) {
  // Ten events at 0, 100, ..., 900: nine segments lose round(9 x 12.34) = 111 ns together, and
  // every prefix of k segments loses round(k x 12.34) (12, 25, 37, 49, ...), never a whole-ns
  // value k times over.
  TraceScript s(1);
  for (int i = 0; i < 5; ++i) s.Work(0, "w", i * 200, i * 200 + 100);
  Trace t = s.Finish();
  CompensateOptions o;
  o.overhead_per_event_ns = 12.34;
  Result<Compensation> c = Compensate(t, o);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->measured_ns, 900);
  EXPECT_EQ(c->compensated_ns, 900 - 111);
  for (EventIndex k = 1; k < 10; ++k) {
    const TimeNs lost = static_cast<TimeNs>(k) * 100 - (c->times.at(LocationId(0), k) - c->times.at(LocationId(0), 0));
    EXPECT_EQ(lost, std::llround(static_cast<double>(k) * 12.34)) << "after " << k << " segments";
  }
  EXPECT_EQ(c->naive_ns, 900 - 123);  // 10 events x 12.34, rounded
}

TEST(Compensate, NeedsAnOverhead) {
  Trace t = OneSend(50);
  EXPECT_THAT(Compensate(t), StatusIs(StatusCode::kFailedPrecondition, HasSubstr("--overhead")));
}

// Tiny grains recorded with the plain TSC get a note naming the shortest; with the ordered TSC,
// or when the grains last a microsecond or more, none.
Trace ManyGrains(std::string_view clock, TimeNs grain_ns) {
  TraceScript s(1);
  for (int i = 0; i < 200; ++i) s.Work(0, "tiny", i * 2 * grain_ns, i * 2 * grain_ns + grain_ns);
  s.builder().AddMetadata("clock", clock);
  return s.Finish();
}

TEST(Compensate, NotesTinyGrainsUnderThePlainTsc) {
  Compensation c = CompensateWithO(ManyGrains("tsc", 50));
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_THAT(c.notes[0], HasSubstr("region 'tiny' lasts 50 ns on average"));
  EXPECT_THAT(c.notes[0], HasSubstr("GRAINSCOPE_CLOCK=tsc-ordered"));
  EXPECT_TRUE(CompensateWithO(ManyGrains("tsc-ordered", 50)).notes.empty());
  EXPECT_TRUE(CompensateWithO(ManyGrains("tsc", 1000)).notes.empty());
}

}  // namespace
}  // namespace grainscope
