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

}  // namespace
}  // namespace grainscope
