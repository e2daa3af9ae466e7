#include "model/timeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "model/trace_script.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Rank 0 works 0..10 and sends at 10; rank 1 receives from 0 to 12: 3 + 3 events.
Trace TwoRanks() {
  TraceScript s(2);
  MessageId m = s.Message(0, 1);
  s.Work(0, "solve", 0, 10);
  s.Send(0, m, 10);
  s.Recv(1, m, 0, 12);
  return s.Finish();
}

Timeline FlatTimes(const Trace& t, std::vector<TimeNs> times) {
  Result<Timeline> r = Timeline::FromFlat(t, std::move(times));
  EXPECT_THAT(r, IsOk());
  return r.ok() ? std::move(*r) : Timeline();
}

TEST(Timeline, FromFlatLaysLocationsEndToEnd) {
  Trace t = TwoRanks();
  ASSERT_EQ(t.events(LocationId(0)).size(), 5u);  // enter, leave, enter MPI_Send, send, leave
  ASSERT_EQ(t.flat_offset(LocationId(1)), 5u);
  Result<Timeline> tl = Timeline::FromFlat(t, {0, 20, 20, 20, 21, 5, 30, 31});
  ASSERT_THAT(tl, IsOk());
  EXPECT_THAT(tl->at(LocationId(0)), ElementsAre(0, 20, 20, 20, 21));
  EXPECT_THAT(tl->at(LocationId(1)), ElementsAre(5, 30, 31));
  EXPECT_EQ(tl->at(LocationId(1), 2), 31);
  EXPECT_EQ(tl->start(), 0);
  EXPECT_EQ(tl->end(), 31);
  EXPECT_EQ(tl->event_count(), 8u);
}

TEST(Timeline, RefusesAnotherTracesCountOrTimesGoingBack) {
  Trace t = TwoRanks();
  EXPECT_THAT(Timeline::FromFlat(t, {1, 2, 3}), StatusIs(StatusCode::kInternal, HasSubstr("3 times for 8 events")));
  EXPECT_THAT(Timeline::FromFlat(t, {0, 20, 20, 20, 21, 40, 30, 31}),
              StatusIs(StatusCode::kInternal, HasSubstr("location 1 event 1 at 30 ns is earlier")));
  // Time may go back from one location to the next: each location is its own clock.
  EXPECT_THAT(Timeline::FromFlat(t, {50, 60, 60, 60, 61, 0, 1, 2}), IsOk());
}

TEST(Timeline, RetimedTraceSharesEverythingButTheTimes) {
  Trace t = TwoRanks();
  Result<Trace> r = t.Retimed(FlatTimes(t, {0, 20, 20, 20, 21, 5, 30, 31}), "+replay");
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(r->format(), std::string(t.format()) + "+replay");
  EXPECT_EQ(&r->messages(), &t.messages());  // the same table, not a copy
  EXPECT_EQ(&r->events(LocationId(0)).kind[0], &t.events(LocationId(0)).kind[0]);
  EXPECT_EQ(r->events(LocationId(0)).time[1], 20);
  EXPECT_EQ(t.events(LocationId(0)).time[1], 10);  // the recorded trace is unchanged
  EXPECT_EQ(r->start_ns(), 0);
  EXPECT_EQ(r->end_ns(), 31);

  // What-if views chain: a view of a view still shares the recorded trace's events.
  Result<Trace> again = r->Retimed(FlatTimes(*r, {1, 2, 3, 4, 5, 6, 7, 8}), "+clc");
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->format(), std::string(t.format()) + "+replay+clc");
  EXPECT_EQ(&again->messages(), &t.messages());
  EXPECT_EQ(again->end_ns(), 8);
}

TEST(Timeline, RetimedRefusesATimelineOfOtherEvents) {
  Trace t = TwoRanks();
  Result<Timeline> other = Timeline::FromLocations({{1, 2, 3, 4}, {5, 6, 7, 8}});
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(t.Retimed(std::move(*other), "+x"), StatusIs(StatusCode::kInternal, HasSubstr("not one of this trace's events")));
}

}  // namespace
}  // namespace grainscope
