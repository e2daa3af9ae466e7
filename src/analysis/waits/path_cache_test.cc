#include "analysis/waits/path_cache.h"

#include <gtest/gtest.h>

namespace grainscope {
namespace {

TEST(PathCache, FindsWhatItAddedThroughGrowth) {
  PathCache<int> cache;
  for (uint32_t i = 0; i < 10000; ++i) {
    auto [v, added] = cache.TryEmplace(PathKey{i % 7, i, i * 3});
    ASSERT_TRUE(added);
    *v = static_cast<int>(i);
  }
  EXPECT_EQ(cache.size(), 10000u);
  for (uint32_t i = 0; i < 10000; ++i) {
    auto [v, added] = cache.TryEmplace(PathKey{i % 7, i, i * 3});
    EXPECT_FALSE(added);
    EXPECT_EQ(*v, static_cast<int>(i));
  }
  // Keys that differ in one field only are different keys.
  EXPECT_TRUE(cache.TryEmplace(PathKey{0, 0, 1}).second);
  EXPECT_TRUE(cache.TryEmplace(PathKey{1, 0, 0}).second);
  EXPECT_EQ(cache.size(), 10002u);
}

// A path is computed once while cached; once the cache is full it is forgotten whole, and a path
// asked for again is computed again, the same.
TEST(LatePathCache, ComputesOncePerKeyUntilFullThenStartsOver) {
  LatePathCache cache;
  size_t computed = 0;
  auto path_of = [&](uint32_t i) {
    return cache.Get(PathKey{1, i, i + 1}, [&](steps::Sparse& out) {
      ++computed;
      out.assign({{i, TimeNs{2} * i}, {i + 1, -1}});
    });
  };
  for (int round = 0; round < 2; ++round) {
    const steps::View v = path_of(7);
    ASSERT_EQ(v.size(), 2u);
    EXPECT_EQ(v[0], (steps::Entry{7, 14}));
    EXPECT_EQ(v[1], (steps::Entry{8, -1}));
  }
  EXPECT_EQ(computed, 1u);
  for (uint32_t i = 100; cache.size() < LatePathCache::kPaths; ++i) path_of(i);
  EXPECT_EQ(path_of(7)[0], (steps::Entry{7, 14}));
  EXPECT_EQ(computed, LatePathCache::kPaths + 1) << "forgotten when full: 7 computed again";
  EXPECT_EQ(cache.size(), 1u);
}

}  // namespace
}  // namespace grainscope
