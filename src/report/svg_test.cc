#include "report/svg.h"

#include <gtest/gtest.h>

namespace grainscope {
namespace {

TEST(SvgTest, LengthColorRunsFromPaleBlueToDarkRedOnALogScale) {
  EXPECT_EQ(LengthColor(1, 1, 1000), "#c6dbef");
  EXPECT_EQ(LengthColor(1000, 1, 1000), "#a50f15");
  EXPECT_EQ(LengthColor(5000, 1, 1000), "#a50f15") << "clamped";
  EXPECT_EQ(LengthColor(10, 10, 10), "#a50f15") << "one length only: the important colour";
}

TEST(SvgTest, NiceTicksAreRoundSteps) {
  EXPECT_EQ(NiceTicks(10), (std::vector<double>{0, 2, 4, 6, 8, 10}));
  EXPECT_EQ(NiceTicks(9050), (std::vector<double>{0, 2000, 4000, 6000, 8000}));
  EXPECT_EQ(NiceTicks(0), (std::vector<double>{0}));
}

}  // namespace
}  // namespace grainscope
