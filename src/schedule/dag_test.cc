#include "schedule/dag.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/schedule.h"
#include "schedule/testing/dag_literal.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// a(2) -> b(3) [1], a -> c(4) [2], b -> d(1) [1], c -> d [1]
TaskDag Diamond() { return MakeDag({2, 3, 4, 1}, {{0, 1, 1}, {0, 2, 2}, {1, 3, 1}, {2, 3, 1}}); }

TEST(TaskDag, LevelsOfTheDiamond) {
  const TaskDag g = Diamond();
  EXPECT_THAT(StaticBottomLevels(g), ElementsAre(7, 4, 5, 1));
  EXPECT_THAT(BottomLevels(g), ElementsAre(10, 5, 6, 1));
  EXPECT_THAT(TopLevels(g), ElementsAre(0, 3, 4, 9));
  EXPECT_EQ(CriticalPathWithoutCommunication(g), 7);
  EXPECT_EQ(g.total_weight(), 10);
  EXPECT_THAT(g.topo_order, ElementsAre(0, 1, 2, 3));
}

TEST(TaskDag, RepeatedEdgesAreMergedBySummingTheirCosts) {
  const TaskDag g = MakeDag({1, 1}, {{0, 1, 3}, {0, 1, 4}});
  ASSERT_EQ(g.edge_count(), 1u);
  EXPECT_EQ(g.successors(0)[0].cost, 7);
  EXPECT_EQ(g.predecessors(1)[0].cost, 7);
  EXPECT_EQ(g.merged_edges, 1u);
}

TEST(TaskDag, TopologicalOrderTakesTheSmallestReadyIndexFirst) {
  const TaskDag g = MakeDag({1, 1, 1, 1}, {{3, 0, 0}, {2, 1, 0}});
  EXPECT_THAT(g.topo_order, ElementsAre(2, 1, 3, 0));
}

TEST(TaskDag, CyclesAreRejectedNamingTheTasks) {
  DagBuilder b("g.dot");
  for (int i = 1; i <= 4; ++i) b.AddTask(i * 10, 1);
  b.AddEdge(0, 1, 0);
  b.AddEdge(1, 2, 0);
  b.AddEdge(2, 3, 0);
  b.AddEdge(3, 1, 0);
  EXPECT_THAT(std::move(b).Build(),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("g.dot: the task graph has a cycle (20 -> 30 -> 40 -> 20)")));
}

TEST(TaskDag, SelfLoopsAreRejected) {
  DagBuilder b("g.dot");
  b.AddTask(5, 1);
  b.AddEdge(0, 0, 1);
  EXPECT_THAT(std::move(b).Build(), StatusIs(StatusCode::kFailedPrecondition, HasSubstr("task 5 depends on itself")));
}

TEST(TaskDag, HugeTimesAreRejected) {
  DagBuilder b("g");
  b.AddTask(1, int64_t{1} << 62);
  EXPECT_THAT(std::move(b).Build(), StatusIs(StatusCode::kFailedPrecondition, HasSubstr("too large")));
}

TEST(ProcessorTimeline, InsertionUsesTheFirstGapThatFits) {
  ProcessorTimeline p;
  p.Place(0, 2);
  p.Place(5, 6);
  p.Place(10, 12);
  EXPECT_EQ(p.EarliestStart(0, 3, true), 2);   // [2, 5) fits
  EXPECT_EQ(p.EarliestStart(3, 3, true), 6);   // [3, 6) would overlap [5, 6): next gap
  EXPECT_EQ(p.EarliestStart(0, 5, true), 12);  // no gap of 5 before the end
  EXPECT_EQ(p.EarliestStart(0, 3, false), 12);
  EXPECT_EQ(p.EarliestStart(20, 1, true), 20);
  p.Place(2, 5);
  EXPECT_EQ(p.EarliestStart(0, 1, true), 6);
}

TEST(Schedule, ValidationFindsEveryKindOfViolation) {
  const TaskDag g = Diamond();
  const Machine m = Processors(2);
  Schedule s;
  s.slots = {{0, 0, 2}, {1, 3, 6}, {0, 2, 6}, {0, 7, 8}};
  s.makespan = 8;
  EXPECT_THAT(ValidateSchedule(g, m, s), IsOk());
  s.slots[1] = {1, 2, 5};  // b before a's data arrives on processor 1
  EXPECT_THAT(ValidateSchedule(g, m, s), StatusIs(StatusCode::kInternal, HasSubstr("before its input from 1")));
  s.slots[1] = {0, 5, 8};  // b overlaps c on processor 0
  s.slots[3] = {0, 9, 10};
  s.makespan = 10;
  EXPECT_THAT(ValidateSchedule(g, m, s), StatusIs(StatusCode::kInternal, HasSubstr("overlap")));
}

// The measured assignment replayed in the model: a and b on processor 0 (a first), c and d on
// processor 1. a [0,2]; b [2,5] (same processor: no cost); c waits for a's data, 2 + 2: [4,8];
// d needs b (processor 0, 5 + 1 = 6) and c (8): [8,9].
TEST(Schedule, AssignmentReplayedInTheModel) {
  const TaskDag g = Diamond();
  const std::vector<uint32_t> processor{0, 0, 1, 1};
  const std::vector<int64_t> rank{0, 10, 5, 20};
  Result<Schedule> s = ScheduleOfAssignment(g, Processors(2), processor, rank);
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(s->heuristic, "measured");
  EXPECT_THAT(ValidateSchedule(g, Processors(2), *s), IsOk());
  EXPECT_EQ(s->slots[1].start, 2);
  EXPECT_EQ(s->slots[2].start, 4);
  EXPECT_EQ(s->slots[3].start, 8);
  EXPECT_EQ(s->makespan, 9);
  // An order that puts d before its predecessor b cannot be replayed.
  EXPECT_THAT(ScheduleOfAssignment(g, Processors(2), processor, std::vector<int64_t>{0, 30, 5, 20}),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("before its predecessor")));
}

TEST(Schedule, SimpleLowerBoundIsPathOrWork) {
  EXPECT_EQ(SimpleLowerBound(Diamond(), Processors(1)), 10);
  EXPECT_EQ(SimpleLowerBound(Diamond(), Processors(2)), 7);
  Machine fast = Processors(2);
  fast.speeds = {1.0, 2.0};
  // Fastest times (speed 2, rounded half away from zero): a 1, b 2, c 2, d 1. Path a-c-d: 4;
  // work 6 over 2 processors: 3.
  EXPECT_EQ(SimpleLowerBound(Diamond(), fast), 4);
}

}  // namespace
}  // namespace grainscope
