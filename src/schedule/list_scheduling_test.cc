// Hand-checked schedules of the list heuristics (the working is in the comments).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/heuristics.h"
#include "schedule/testing/dag_literal.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::FieldsAre;

MATCHER_P3(Slot, processor, start, finish, "") {
  return arg.processor == static_cast<uint32_t>(processor) && arg.start == start && arg.finish == finish;
}

// a(2) -> b(3) [1], a -> c(4) [2], b -> d(1) [1], c -> d [1]. Static levels a 7, b 4, c 5, d 1;
// b-levels a 10, b 5, c 6, d 1. Every list heuristic schedules a, c, b, d:
//   a p0 [0,2]; c p0 [2,6] (p1 would wait for the cost 2); b p1 [3,6] (p0 is busy until 6);
//   d needs c (p0, 6) and b (p1, 6 + 1): 7 on both processors, the lower index wins: p0 [7,8].
TaskDag Diamond() { return MakeDag({2, 3, 4, 1}, {{0, 1, 1}, {0, 2, 2}, {1, 3, 1}, {2, 3, 1}}); }

// A(2) -> C(5) [1], A -> B(1) [1], E(1) alone. Priorities put E last; whether it lands in the
// idle gap [0, 3) of processor 1 tells insertion (and ETF's global choice) from appending.
TaskDag Gap() { return MakeDag({2, 5, 1, 1}, {{0, 1, 1}, {0, 2, 1}}); }

void ExpectValid(const TaskDag& g, const Machine& m, const Schedule& s) {
  EXPECT_THAT(ValidateSchedule(g, m, s), IsOk());
}

TEST(Hlfet, Diamond) {
  const Schedule s = ScheduleHlfet(Diamond(), Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(1, 3, 6), Slot(0, 2, 6), Slot(0, 7, 8)));
  EXPECT_EQ(s.makespan, 8);
  EXPECT_EQ(s.heuristic, "hlfet");
  ExpectValid(Diamond(), Processors(2), s);
}

TEST(Hlfet, AppendsWithoutInsertion) {
  // A p0 [0,2]; C p0 [2,7]; B p1 [3,4]; E (level 1, after B by position) appended: p1 [4,5].
  const Schedule s = ScheduleHlfet(Gap(), Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(0, 2, 7), Slot(1, 3, 4), Slot(1, 4, 5)));
  EXPECT_EQ(s.makespan, 7);
  EXPECT_TRUE(s.optimal);  // 7 is the critical path
}

TEST(Etf, Diamond) {
  const Schedule s = ScheduleEtf(Diamond(), Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(1, 3, 6), Slot(0, 2, 6), Slot(0, 7, 8)));
}

TEST(Etf, PicksTheEarliestStartOverAllReadyTasks) {
  // Step 1: A and E start at 0 on p0, A has the higher static level. Step 2: E starts at 0 on
  // p1, earlier than anything else. Then C and B both at 2 on p0: C (level 5) wins; B p1 [3,4].
  const Schedule s = ScheduleEtf(Gap(), Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(0, 2, 7), Slot(1, 3, 4), Slot(1, 0, 1)));
}

TEST(Mcp, Diamond) {
  // ALAP (CP 10 - b-level): a 0, b 5, c 4, d 9: order a, c, b, d.
  const Schedule s = ScheduleMcp(Diamond(), Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(1, 3, 6), Slot(0, 2, 6), Slot(0, 7, 8)));
}

TEST(Mcp, InsertsIntoIdleGaps) {
  // ALAP A 0, C 3, B 7, E 7; E starts earliest in p1's gap before B: [0,1].
  const Schedule s = ScheduleMcp(Gap(), Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(0, 2, 7), Slot(1, 3, 4), Slot(1, 0, 1)));
  ExpectValid(Gap(), Processors(2), s);
}

TEST(Heft, Diamond) {
  // Upward ranks a 10, c 6, b 5, d 1; earliest finish: c p0 6 (p1 8); b p1 6 (p0 9); d p0 8.
  const Schedule s = ScheduleHeft(Diamond(), Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(1, 3, 6), Slot(0, 2, 6), Slot(0, 7, 8)));
}

TEST(Heft, InsertsIntoIdleGaps) {
  const Schedule s = ScheduleHeft(Gap(), Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(0, 2, 7), Slot(1, 3, 4), Slot(1, 0, 1)));
}

TEST(Heft, UsesProcessorSpeeds) {
  // Two tasks of weight 4 on speeds {1, 2}: the first finishes earliest on the fast processor
  // [0,2]; the second finishes at 4 on either, the earlier start (p0 at 0) wins.
  Machine m = Processors(2);
  m.speeds = {1.0, 2.0};
  const TaskDag g = MakeDag({4, 4}, {});
  const Schedule s = ScheduleHeft(g, m);
  EXPECT_THAT(s.slots, ElementsAre(Slot(1, 0, 2), Slot(0, 0, 4)));
  ExpectValid(g, m, s);
}

TEST(ListHeuristics, IndependentTasksLikeLpt) {
  // 3, 3, 2, 2, 2 on two processors: every list heuristic gets 7 (the optimum is 6).
  const TaskDag g = MakeDag({3, 3, 2, 2, 2}, {});
  for (auto run : {ScheduleHlfet, ScheduleEtf, ScheduleMcp, ScheduleHeft}) {
    const Schedule s = run(g, Processors(2));
    EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 3), Slot(1, 0, 3), Slot(0, 3, 5), Slot(1, 3, 5), Slot(0, 5, 7)))
        << s.heuristic;
    EXPECT_FALSE(s.optimal);
    EXPECT_EQ(s.lower_bound, 6);
  }
}

TEST(ListHeuristics, OneProcessorRunsEverythingInOrderWithoutCommunication) {
  for (auto run : {ScheduleHlfet, ScheduleEtf, ScheduleMcp, ScheduleHeft, ScheduleDsc}) {
    const Schedule s = run(Diamond(), Processors(1));
    EXPECT_EQ(s.makespan, 10) << s.heuristic;
    EXPECT_TRUE(s.optimal);
    ExpectValid(Diamond(), Processors(1), s);
  }
}

}  // namespace
}  // namespace grainscope
