#include "schedule/exact.h"

#include <algorithm>
#include <numeric>
#include <random>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/heuristics.h"
#include "schedule/testing/dag_literal.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;

TEST(Exact, DiamondIsEightOnTwoProcessors) {
  // 7 (the path a-c-d) is impossible: d needs b, which either waits for a's data on the other
  // processor (d at >= 7 + 1) or delays c on the same one.
  const TaskDag g = MakeDag({2, 3, 4, 1}, {{0, 1, 1}, {0, 2, 2}, {1, 3, 1}, {2, 3, 1}});
  Result<Schedule> s = ScheduleExact(g, Processors(2), ExactOptions{});
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(s->makespan, 8);
  EXPECT_TRUE(s->optimal);
  EXPECT_EQ(s->lower_bound, 8);
  EXPECT_EQ(s->heuristic, "exact");
  EXPECT_THAT(ValidateSchedule(g, Processors(2), *s), IsOk());
}

TEST(Exact, BeatsTheListHeuristicsOnIndependentTasks) {
  const TaskDag g = MakeDag({3, 3, 2, 2, 2}, {});
  Result<Schedule> s = ScheduleExact(g, Processors(2), ExactOptions{});
  ASSERT_THAT(s, IsOk());
  EXPECT_EQ(s->makespan, 6);
  EXPECT_TRUE(s->optimal);
}

TEST(Exact, NodeLimitStopsTheSearchWithoutClaimingOptimality) {
  // 12 independent tasks on 3 processors, seeded with a poor schedule (all on one processor) so
  // the bound cannot close the gap at the root.
  const TaskDag g = MakeDag({7, 7, 6, 6, 5, 5, 4, 4, 3, 3, 3, 2}, {});
  ExactOptions o;
  o.node_limit = 3;
  Schedule serial;
  int64_t t = 0;
  for (uint32_t i = 0; i < g.size(); ++i) {
    serial.slots.push_back({0, t, t + g.weight[i]});
    t += g.weight[i];
  }
  serial.makespan = t;
  o.initial = serial;
  Result<Schedule> s = ScheduleExact(g, Processors(3), o);
  ASSERT_THAT(s, IsOk());
  EXPECT_FALSE(s->optimal);
  EXPECT_EQ(s->search_nodes, 3u);
  EXPECT_EQ(s->lower_bound, 19);  // ceil(55 / 3)
  EXPECT_THAT(ValidateSchedule(g, Processors(3), *s), IsOk());
  o.node_limit = 0;
  Result<Schedule> full = ScheduleExact(g, Processors(3), o);
  ASSERT_THAT(full, IsOk());
  EXPECT_TRUE(full->optimal);
  EXPECT_EQ(full->makespan, 19);
}

TEST(Exact, NeedsIdenticalProcessors) {
  Machine m = Processors(2);
  m.speeds = {1, 2};
  EXPECT_THAT(ScheduleExact(MakeDag({1}, {}), m, ExactOptions{}),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("identical processors")));
}

TEST(RootLowerBound, EnergeticReasoningRaisesTheBound) {
  // Two chains of 3 tasks of 2 (path 6, work 12) and 4 independent tasks of 3 on 2 processors:
  // path 6 and work 24 / 2 = 12; the bound stays valid and is at least 12.
  const TaskDag g = MakeDag({2, 2, 2, 2, 2, 2, 3, 3, 3, 3}, {{0, 1, 0}, {1, 2, 0}, {3, 4, 0}, {4, 5, 0}});
  EXPECT_GE(RootLowerBound(g, 2), 12);
  // Three tasks of 5 that must all run in [0, 5) (a long tail after each) cannot share 2 processors.
  const TaskDag tight = MakeDag({5, 5, 5, 10, 10, 10}, {{0, 3, 0}, {1, 4, 0}, {2, 5, 0}});
  EXPECT_EQ(CriticalPathWithoutCommunication(tight), 15);
  EXPECT_GT(RootLowerBound(tight, 2), 15);
}

// Independent check on random small graphs: every assignment of tasks to processors and every
// order of the tasks on each processor, each task as early as its inputs and its processor allow
// (every optimal schedule is one of these), against the branch and bound.
int64_t BruteForceOptimum(const TaskDag& g, uint32_t processors) {
  const uint32_t n = g.size();
  int64_t best = INT64_MAX;
  std::vector<uint32_t> proc(n, 0);
  while (true) {
    // For this assignment, try every global priority order (a permutation): on each processor
    // tasks run in permutation order. Permutations that contradict precedence are skipped.
    std::vector<uint32_t> perm(n);
    std::iota(perm.begin(), perm.end(), 0u);
    do {
      std::vector<uint32_t> position(n);
      for (uint32_t i = 0; i < n; ++i) position[perm[i]] = i;
      bool consistent = true;
      for (uint32_t t = 0; t < n && consistent; ++t)
        for (const DagArc& a : g.successors(t)) consistent = consistent && position[t] < position[a.task];
      if (!consistent) continue;
      std::vector<int64_t> finish(n), avail(processors, 0);
      int64_t makespan = 0;
      for (uint32_t t : perm) {
        int64_t start = avail[proc[t]];
        for (const DagArc& a : g.predecessors(t))
          start = std::max(start, finish[a.task] + (proc[a.task] == proc[t] ? 0 : a.cost));
        finish[t] = start + g.weight[t];
        avail[proc[t]] = finish[t];
        makespan = std::max(makespan, finish[t]);
      }
      best = std::min(best, makespan);
    } while (std::next_permutation(perm.begin(), perm.end()));
    uint32_t i = 0;
    while (i < n && ++proc[i] == processors) proc[i++] = 0;
    if (i == n) break;
  }
  return best;
}

TEST(Exact, MatchesBruteForceOnRandomGraphsWithCommunication) {
  std::mt19937 rng(20240611);
  for (int round = 0; round < 30; ++round) {
    const uint32_t n = 4 + rng() % 3;  // 4..6 tasks
    std::vector<int64_t> w(n);
    for (int64_t& x : w) x = 1 + rng() % 6;
    std::vector<std::tuple<uint32_t, uint32_t, int64_t>> edges;
    for (uint32_t a = 0; a < n; ++a)
      for (uint32_t b = a + 1; b < n; ++b)
        if (rng() % 3 == 0) edges.emplace_back(a, b, static_cast<int64_t>(rng() % 5));
    const TaskDag g = MakeDag(w, edges);
    for (uint32_t p : {2u, 3u}) {
      if (p == 3 && n == 6) continue;  // 3^6 assignments x 6! orders: too slow under the sanitizers
      Result<Schedule> s = ScheduleExact(g, Processors(p), ExactOptions{});
      ASSERT_THAT(s, IsOk());
      EXPECT_TRUE(s->optimal);
      EXPECT_EQ(s->makespan, BruteForceOptimum(g, p)) << "round " << round << ", " << p << " processors";
      EXPECT_THAT(ValidateSchedule(g, Processors(p), *s), IsOk());
    }
  }
}

}  // namespace
}  // namespace grainscope
