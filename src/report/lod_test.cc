#include "report/lod.h"

#include <gtest/gtest.h>

#include <cmath>

namespace grainscope {
namespace {

TEST(LodTest, FinestLevelCoversEachBucketAndKeepsTheLongestAndBusiestKey) {
  // One lane over 8 quanta, 4 buckets of 2: [0,2) fully busy (key 7), [2,4) half (key 8),
  // [4,6) empty, [6,8) one quantum of key 9 and one of key 10.
  std::vector<std::vector<QuantumInterval>> lanes{{{0, 2, 7}, {2, 1, 8}, {6, 1, 9}, {7, 1, 10}}};
  std::vector<LodLevel> levels = BuildLodPyramid(lanes, 8, 1.0, 4, 1);
  ASSERT_EQ(levels.size(), 2u);
  const LodLevel& fine = levels[1];
  EXPECT_EQ(fine.buckets, 4u);
  EXPECT_EQ(fine.busy, (std::vector<uint8_t>{255, 128, 0, 255}));
  EXPECT_EQ(fine.key[0], 7u);
  EXPECT_EQ(fine.key[1], 8u);
  EXPECT_EQ(fine.key[3], 9u) << "ties go to the first interval";
  EXPECT_EQ(fine.length[0], LengthClass(2.0));
  EXPECT_EQ(fine.length[2], 0) << "empty bucket";
  const LodLevel& coarse = levels[0];
  EXPECT_EQ(coarse.buckets, 1u);
  EXPECT_EQ(coarse.busy[0], (255 + 128 + 0 + 255 + 2) / 4);
  EXPECT_EQ(coarse.key[0], 7u);
  EXPECT_EQ(coarse.length[0], LengthClass(2.0));
}

TEST(LodTest, AnIntervalSpanningBucketsSplitsItsTimeAndTinyOnesStillShow) {
  std::vector<std::vector<QuantumInterval>> lanes{{{1, 6, 3}}, {{100, 0, 4}}};
  std::vector<LodLevel> levels = BuildLodPyramid(lanes, 400, 1.0, 4, 4);
  ASSERT_EQ(levels.size(), 1u);
  EXPECT_EQ(levels[0].busy[0], 15) << "6 of 100 quanta: round(0.06 * 255)";
  EXPECT_EQ(levels[0].busy[4 + 1], 1) << "an instant still shows in its bucket";
  EXPECT_EQ(levels[0].key[4 + 1], 4u);
  EXPECT_EQ(levels[0].busy[4 + 0], 0);
}

// A layer's summary: overlapping intervals count once, in any order; an instant still shows.
TEST(LodTest, CoverageCellsCountOverlapsOnceInAnyOrder) {
  // Lane 0 over 8 quanta in 4 buckets: [0,2) covered twice over, [2,4) by [3,4) and [2,3) given
  // out of order; lane 1: an instant at 5.
  std::vector<std::vector<QuantumInterval>> lanes{{{3, 1, 0}, {0, 2, 0}, {0, 1, 0}, {2, 1, 0}, {1, 1, 0}}, {{5, 0, 0}}};
  EXPECT_EQ(CoverageCells(lanes, 8, 4), (std::vector<uint8_t>{255, 255, 0, 0, 0, 0, 1, 0}));
}

TEST(LodTest, DensityCellsAreALogScaleUpToTheDensestCell) {
  // 7 points in bucket 0 of lane 0 (the densest), 1 in bucket 1, none after; 1 in lane 1's last.
  std::vector<std::vector<uint32_t>> lanes{{0, 0, 1, 1, 1, 1, 1, 2}, {7}};
  const std::vector<uint8_t> cells = DensityCells(lanes, 8, 4);
  EXPECT_EQ(cells[0], 255);
  EXPECT_EQ(cells[1], 1 + std::lround(254.0 * std::log1p(1) / std::log1p(7)));
  EXPECT_EQ(cells[2], 0);
  EXPECT_EQ(cells[7], cells[1]);
}

TEST(LodTest, LengthClassIsALogScale) {
  EXPECT_EQ(LengthClass(0), 0);
  EXPECT_EQ(LengthClass(1), 1);
  EXPECT_EQ(LengthClass(1024), 81);
  EXPECT_EQ(LengthClass(1e30), 255);
}

TEST(LodTest, Base64MatchesRfc4648) {
  EXPECT_EQ(Base64("", 0), "");
  EXPECT_EQ(Base64("f", 1), "Zg==");
  EXPECT_EQ(Base64("fo", 2), "Zm8=");
  EXPECT_EQ(Base64("foo", 3), "Zm9v");
  EXPECT_EQ(Base64("foobar", 6), "Zm9vYmFy");
}

}  // namespace
}  // namespace grainscope
