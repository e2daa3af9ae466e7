// Hand-checked DSC clusterings and their mapping onto processors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/heuristics.h"
#include "schedule/testing/dag_literal.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;

MATCHER_P3(Slot, processor, start, finish, "") {
  return arg.processor == static_cast<uint32_t>(processor) && arg.start == start && arg.finish == finish;
}

TEST(Dsc, Diamond) {
  // b-levels a 10, b 5, c 6, d 1. Examine a (cluster 0, [0,2]); c (priority 4 + 6): joining
  // cluster 0 starts it at 2 < 4, so edge a-c is zeroed; b (3 + 5): cluster 0 would start it at
  // 6 > 3: a new cluster 1 [3,6]; d: 7 in cluster 0, 1 or alone: no gain, cluster 2.
  // Clusters by work 6, 3, 1 -> p0, p1, p1 (load 3 + 1 < 6 + 1).
  const TaskDag g = MakeDag({2, 3, 4, 1}, {{0, 1, 1}, {0, 2, 2}, {1, 3, 1}, {2, 3, 1}});
  const Schedule s = ScheduleDsc(g, Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(1, 3, 6), Slot(0, 2, 6), Slot(1, 7, 8)));
  EXPECT_EQ(s.makespan, 8);
  EXPECT_THAT(ValidateSchedule(g, Processors(2), s), IsOk());
}

TEST(Dsc, ZeroesAnExpensiveEdgeOfAChain) {
  const TaskDag g = MakeDag({1, 1, 1}, {{0, 1, 10}, {1, 2, 10}});
  const Schedule s = ScheduleDsc(g, Processors(4));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 1), Slot(0, 1, 2), Slot(0, 2, 3)));
}

TEST(Dsc, ForkWithCheapEdgesSpreadsOverProcessors) {
  // r(1) -> x(5), y(5), z(5) at cost 1: x joins r's cluster (starts at 1 instead of 2); y and z
  // would start at 6 there, so they get clusters of their own starting at 2.
  const TaskDag g = MakeDag({1, 5, 5, 5}, {{0, 1, 1}, {0, 2, 1}, {0, 3, 1}});
  const Schedule s = ScheduleDsc(g, Processors(3));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 1), Slot(0, 1, 6), Slot(1, 2, 7), Slot(2, 2, 7)));
  // On two processors z's cluster goes where z finishes earliest: after x on p0 (11), not after
  // y on p1 (12).
  const Schedule two = ScheduleDsc(g, Processors(2));
  EXPECT_THAT(two.slots, ElementsAre(Slot(0, 0, 1), Slot(0, 1, 6), Slot(1, 2, 7), Slot(0, 6, 11)));
}

TEST(Dsc, GapFillingWhenClustersShareAProcessor) {
  // A(2) -> C(5) [1], A -> B(1) [1], E(1): clusters {A, C} 7, {B} 1, {E} 1; B and E share p1,
  // E (examined last) goes into the gap before B.
  const TaskDag g = MakeDag({2, 5, 1, 1}, {{0, 1, 1}, {0, 2, 1}});
  const Schedule s = ScheduleDsc(g, Processors(2));
  EXPECT_THAT(s.slots, ElementsAre(Slot(0, 0, 2), Slot(0, 2, 7), Slot(1, 3, 4), Slot(1, 0, 1)));
}

}  // namespace
}  // namespace grainscope
