#include "schedule/portfolio.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/testing/dag_literal.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;

TaskDag Diamond() { return MakeDag({2, 3, 4, 1}, {{0, 1, 1}, {0, 2, 2}, {1, 3, 1}, {2, 3, 1}}); }

TEST(Heuristic, NamesRoundTrip) {
  for (Heuristic h : {Heuristic::kHlfet, Heuristic::kEtf, Heuristic::kMcp, Heuristic::kHeft, Heuristic::kDsc,
                      Heuristic::kExact, Heuristic::kBest}) {
    EXPECT_EQ(ParseHeuristic(HeuristicName(h)), h);
  }
  EXPECT_EQ(ParseHeuristic("hu"), std::nullopt);
}

TEST(Portfolio, BestKeepsTheFirstOfEqualHeuristicSchedulesAndProvesIt) {
  Result<Schedule> s = RunHeuristic(Diamond(), Processors(2), Heuristic::kBest, PortfolioOptions{});
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(s->heuristic, "hlfet");
  EXPECT_EQ(s->makespan, 8);
  EXPECT_TRUE(s->optimal);  // the exact search proved it
}

TEST(Portfolio, BestUsesTheExactSearchWhenItImproves) {
  Result<Schedule> s = RunHeuristic(MakeDag({3, 3, 2, 2, 2}, {}), Processors(2), Heuristic::kBest, PortfolioOptions{});
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(s->heuristic, "exact");
  EXPECT_EQ(s->makespan, 6);
  EXPECT_TRUE(s->optimal);
}

TEST(Portfolio, RejectsABadMachine) {
  Machine m = Processors(2);
  m.speeds = {1};
  EXPECT_THAT(RunHeuristic(Diamond(), m, Heuristic::kHeft, PortfolioOptions{}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("1 processor speeds given for 2 processors")));
  EXPECT_THAT(RunHeuristic(Diamond(), Processors(0), Heuristic::kHeft, PortfolioOptions{}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("at least 1")));
}

TEST(SpeedupCurve, DiamondSaturatesAtTwoProcessors) {
  Result<std::vector<SpeedupPoint>> c = SpeedupCurve(Diamond(), Heuristic::kBest, 1, 3, PortfolioOptions{});
  ASSERT_THAT(c, IsOk());
  ASSERT_EQ(c->size(), 3u);
  EXPECT_EQ((*c)[0].makespan, 10);
  EXPECT_DOUBLE_EQ((*c)[0].speedup, 1.0);
  EXPECT_EQ((*c)[1].makespan, 8);
  EXPECT_DOUBLE_EQ((*c)[1].speedup, 1.25);
  EXPECT_EQ((*c)[2].makespan, 8);
  EXPECT_TRUE((*c)[2].optimal);
  EXPECT_THAT(SpeedupCurve(Diamond(), Heuristic::kBest, 3, 2, PortfolioOptions{}),
              StatusIs(StatusCode::kInvalidArgument, HasSubstr("3..2")));
}

// Past as many processors as tasks the curve repeats its last scheduled point: what every
// heuristic gives when it does schedule on that many (checked here), so the shortcut is exact.
TEST(SpeedupCurve, MoreProcessorsThanTasksRepeatTheSchedule) {
  const TaskDag wide = MakeDag({5, 3, 4, 2, 6, 1}, {{0, 2, 3}, {1, 2, 1}, {0, 3, 2}, {3, 5, 4}, {4, 5, 1}});
  for (Heuristic h : {Heuristic::kHlfet, Heuristic::kEtf, Heuristic::kMcp, Heuristic::kHeft, Heuristic::kDsc,
                      Heuristic::kBest}) {
    Result<std::vector<SpeedupPoint>> c = SpeedupCurve(wide, h, 1, 40, PortfolioOptions{});
    ASSERT_THAT(c, IsOk());
    ASSERT_EQ(c->size(), 40u);
    for (uint32_t p : {6u, 7u, 13u, 40u}) {
      Result<Schedule> s = RunHeuristic(wide, Processors(p), h, PortfolioOptions{});
      ASSERT_THAT(s, IsOk());
      const SpeedupPoint& point = (*c)[p - 1];
      EXPECT_EQ(point.processors, p);
      EXPECT_EQ(point.makespan, s->makespan) << HeuristicName(h) << " on " << p;
      EXPECT_EQ(point.lower_bound, s->lower_bound) << HeuristicName(h) << " on " << p;
      EXPECT_EQ(point.optimal, s->optimal) << HeuristicName(h) << " on " << p;
    }
  }
  // A range that starts past the task count schedules once.
  Result<std::vector<SpeedupPoint>> far = SpeedupCurve(wide, Heuristic::kBest, 50, 100000, PortfolioOptions{});
  ASSERT_THAT(far, IsOk());
  ASSERT_EQ(far->size(), 99951u);
  EXPECT_EQ(far->back().processors, 100000u);
  EXPECT_EQ(far->back().makespan, far->front().makespan);
}

TEST(ProcessorRange, OneNumberOrARange) {
  EXPECT_EQ(ParseProcessorRange("8"), std::make_pair(1u, 8u));
  EXPECT_EQ(ParseProcessorRange("2..16"), std::make_pair(2u, 16u));
  EXPECT_EQ(ParseProcessorRange("4..4"), std::make_pair(4u, 4u));
  for (const char* bad : {"0", "..4", "4..", "5..2", "1..x", "-1", "1...4", "", "100001"})
    EXPECT_EQ(ParseProcessorRange(bad), std::nullopt) << bad;
}

}  // namespace
}  // namespace grainscope
