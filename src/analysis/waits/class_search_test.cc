#include "analysis/waits/class_search.h"

#include <gtest/gtest.h>

#include <random>

namespace grainscope {
namespace {

// Random share vectors over a few steps, most of them concentrated on one or two steps.
Shares RandomShares(std::mt19937& rng, uint32_t steps) {
  std::vector<double> w(steps);
  for (double& x : w) x = std::uniform_real_distribution<double>(0, 1)(rng) < 0.4 ? std::exponential_distribution<double>(1)(rng) : 0;
  double total = 0;
  for (double x : w) total += x;
  Shares out;
  for (uint32_t s = 0; s < steps; ++s)
    if (w[s] > 0) out.push_back({s, w[s] / total});
  return out;
}

// The lower bound may only skip classes: the chosen class is always the first one the exact
// distance alone accepts.
TEST(ClassSearch, ChoosesTheFirstClassTheExactDistanceAccepts) {
  std::mt19937 rng(7);
  for (uint32_t steps : {3u, 12u, 40u}) {
    for (double threshold : {0.1, 0.5, 1.2}) {
      StepBuckets buckets(steps);
      ClassSearch search;
      std::vector<Shares> reps;
      for (int i = 0; i < 600; ++i) {
        const Shares s = RandomShares(rng, steps);
        size_t expected = reps.size();
        for (size_t r = 0; r < reps.size(); ++r) {
          if (ShareDistance(reps[r], s, threshold) < threshold) {
            expected = r;
            break;
          }
        }
        ASSERT_EQ(search.First(s, threshold, buckets), expected) << "steps " << steps << " threshold " << threshold;
        if (expected == reps.size()) {
          reps.push_back(s);
          search.Add(s, buckets);
        }
      }
      EXPECT_EQ(search.class_count(), reps.size());
    }
  }
}

TEST(ClassSearch, DistanceIsTheSumOfShareDifferences) {
  const Shares a = {{1, 0.5}, {2, 0.5}}, b = {{2, 0.25}, {3, 0.75}};
  EXPECT_DOUBLE_EQ(ShareDistance(a, b, 10), 0.5 + 0.25 + 0.75);
  EXPECT_DOUBLE_EQ(ShareDistance(a, a, 10), 0);
}

}  // namespace
}  // namespace grainscope
