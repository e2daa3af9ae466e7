#include "base/numbers.h"

#include <gtest/gtest.h>

namespace grainscope {
namespace {

TEST(ParseNonNegativeInt, AcceptsWholeTokensOnly) {
  EXPECT_EQ(ParseNonNegativeInt("0"), 0);
  EXPECT_EQ(ParseNonNegativeInt("290"), 290);
  EXPECT_EQ(ParseNonNegativeInt("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseNonNegativeInt(""), std::nullopt);
  EXPECT_EQ(ParseNonNegativeInt("-1"), std::nullopt);
  EXPECT_EQ(ParseNonNegativeInt("+1"), std::nullopt);
  EXPECT_EQ(ParseNonNegativeInt("12a"), std::nullopt);
  EXPECT_EQ(ParseNonNegativeInt("1.5"), std::nullopt);
  EXPECT_EQ(ParseNonNegativeInt("9223372036854775808"), std::nullopt);
}

TEST(ParseScaledNs, MillisecondsToNanosecondsExactly) {
  constexpr int64_t kMs = 1'000'000;
  EXPECT_EQ(ParseScaledNs("290", kMs), 290'000'000);
  EXPECT_EQ(ParseScaledNs("290.5", kMs), 290'500'000);
  EXPECT_EQ(ParseScaledNs("0.000001", kMs), 1);
  EXPECT_EQ(ParseScaledNs("1.250001", kMs), 1'250'001);
  EXPECT_EQ(ParseScaledNs("1.2500010", kMs), 1'250'001);  // a trailing zero below 1 ns is fine
  EXPECT_EQ(ParseScaledNs("0.0000001", kMs), std::nullopt);  // finer than 1 ns
  EXPECT_EQ(ParseScaledNs("1.", kMs), std::nullopt);
  EXPECT_EQ(ParseScaledNs(".5", kMs), std::nullopt);
  EXPECT_EQ(ParseScaledNs("1.5x", kMs), std::nullopt);
  EXPECT_EQ(ParseScaledNs("9223372036854", kMs), 9'223'372'036'854'000'000);
  EXPECT_EQ(ParseScaledNs("9223372036855", kMs), std::nullopt);  // overflows int64 ns
  EXPECT_EQ(ParseScaledNs("9223372036854.775807", kMs), INT64_MAX);
  EXPECT_EQ(ParseScaledNs("9223372036854.775808", kMs), std::nullopt);
}

TEST(ParseScaledNs, NanosecondUnitTakesNoFraction) {
  EXPECT_EQ(ParseScaledNs("17", 1), 17);
  EXPECT_EQ(ParseScaledNs("17.0", 1), 17);
  EXPECT_EQ(ParseScaledNs("17.5", 1), std::nullopt);
}

TEST(ParseFineDurationNs, ThousandthsOfANanosecondWithUnits) {
  EXPECT_EQ(ParseFineDurationNs("12"), 12.0);
  EXPECT_EQ(ParseFineDurationNs("10.43"), 10.43);
  EXPECT_EQ(ParseFineDurationNs("0.125"), 0.125);
  EXPECT_EQ(ParseFineDurationNs("10ns"), 10.0);
  EXPECT_EQ(ParseFineDurationNs("1.5us"), 1500.0);
  EXPECT_EQ(ParseFineDurationNs("0.0000125ms"), 12.5);
  EXPECT_EQ(ParseFineDurationNs("2s"), 2e9);
  EXPECT_FALSE(ParseFineDurationNs("1.2345"));
  EXPECT_FALSE(ParseFineDurationNs("1.2345ns"));
  EXPECT_FALSE(ParseFineDurationNs("-1"));
  EXPECT_FALSE(ParseFineDurationNs("x"));
  EXPECT_FALSE(ParseFineDurationNs("ns"));
  EXPECT_FALSE(ParseFineDurationNs(""));
}

// compensate --overhead: what the README promises for durations, to 1/1000 ns (issue 33).
TEST(ParseFineDurationNs, UnitsToAThousandthOfANanosecond) {
  EXPECT_EQ(ParseFineDurationNs("10"), 10.0);
  EXPECT_EQ(ParseFineDurationNs("10ns"), 10.0);
  EXPECT_EQ(ParseFineDurationNs("12.345ns"), 12.345);
  EXPECT_EQ(ParseFineDurationNs("0.0125us"), 12.5);
  EXPECT_EQ(ParseFineDurationNs("0.000000001ms"), 0.001);
  EXPECT_EQ(ParseFineDurationNs("2s"), 2e9);
  EXPECT_FALSE(ParseFineDurationNs("1.2345"));      // finer than 1/1000 ns
  EXPECT_FALSE(ParseFineDurationNs("0.0000000001ms"));  // ... in any unit
  EXPECT_FALSE(ParseFineDurationNs("-1ns"));
  EXPECT_FALSE(ParseFineDurationNs("10xs"));
  EXPECT_FALSE(ParseFineDurationNs("ns"));
  EXPECT_FALSE(ParseFineDurationNs("99999999999s"));  // past int64 thousandths
}

TEST(ParseDurationNs, UnitsOrTheDefaultUnit) {
  EXPECT_EQ(ParseDurationNs("250"), 250);
  EXPECT_EQ(ParseDurationNs("250", 1'000), 250'000);
  EXPECT_EQ(ParseDurationNs("5ns"), 5);
  EXPECT_EQ(ParseDurationNs("5us"), 5'000);
  EXPECT_EQ(ParseDurationNs("1.5ms"), 1'500'000);
  EXPECT_EQ(ParseDurationNs("2s"), 2'000'000'000);
  EXPECT_EQ(ParseDurationNs("0.000000001s"), 1);
  EXPECT_EQ(ParseDurationNs("1.5ns"), std::nullopt);  // finer than 1 ns
  EXPECT_EQ(ParseDurationNs("-5us"), std::nullopt);
  EXPECT_EQ(ParseDurationNs("nan"), std::nullopt);
  EXPECT_EQ(ParseDurationNs("inf"), std::nullopt);
  EXPECT_EQ(ParseDurationNs("s"), std::nullopt);
  EXPECT_EQ(ParseDurationNs("5 us"), std::nullopt);
  EXPECT_EQ(ParseDurationNs("5min"), std::nullopt);
  EXPECT_EQ(ParseDurationNs("1e3"), std::nullopt);
  EXPECT_EQ(ParseDurationNs("9223372036854775807"), INT64_MAX);
  EXPECT_EQ(ParseDurationNs("9223372036854775807us"), std::nullopt);  // overflow
}

TEST(ParseFiniteDouble, RejectsNanInfinityAndJunk) {
  EXPECT_EQ(ParseFiniteDouble("0.15"), 0.15);
  EXPECT_EQ(ParseFiniteDouble("-2"), -2.0);
  EXPECT_EQ(ParseFiniteDouble("1e3"), 1000.0);
  EXPECT_EQ(ParseFiniteDouble(".5"), 0.5);
  EXPECT_EQ(ParseFiniteDouble("nan"), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble("NaN"), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble("-nan"), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble("inf"), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble("-infinity"), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble("1e999"), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble("0x10"), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble(" 1"), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble("1 "), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble(""), std::nullopt);
  EXPECT_EQ(ParseFiniteDouble("1.2.3"), std::nullopt);
}

}  // namespace
}  // namespace grainscope
