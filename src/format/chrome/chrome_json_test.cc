#include "format/chrome/chrome_json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"

namespace grainscope::chrome {
namespace {

using ::testing::HasSubstr;

int64_t Ns(std::string_view micros) {
  int64_t ns = -1;
  EXPECT_TRUE(MicrosToNs(micros, &ns)) << micros;
  return ns;
}

TEST(MicrosToNs, ConvertsDecimalsExactly) {
  EXPECT_EQ(Ns("12"), 12000);
  EXPECT_EQ(Ns("12.5"), 12500);
  EXPECT_EQ(Ns("-3.25"), -3250);
  EXPECT_EQ(Ns("0.001"), 1);
  EXPECT_EQ(Ns("0.0004"), 0);
  EXPECT_EQ(Ns("0.0005"), 1);     // half away from zero
  EXPECT_EQ(Ns("-0.0005"), -1);
  EXPECT_EQ(Ns("1.5e3"), 1500000);
  EXPECT_EQ(Ns("25E-1"), 2500);
  EXPECT_EQ(Ns("007.000"), 7000);
  // A double is off by a nanosecond here; Kineto writes such times (nccl.json).
  EXPECT_EQ(Ns("4458676522690.655"), 4458676522690655);
  // Unix-epoch microseconds with a fraction, which no double holds to the nanosecond.
  EXPECT_EQ(Ns("1694039968955744.123"), 1694039968955744123);
  EXPECT_EQ(Ns("9223372036854775.807"), INT64_MAX);
  EXPECT_EQ(Ns("0.00000000000000000000000000000000000000000001"), 0);
}

TEST(MicrosToNs, RejectsWhatIsNotANumberOrDoesNotFit) {
  int64_t ns;
  for (std::string_view bad : {"", "-", ".", "1.2.3", "12us", "e5", "1e", "0x10", " 1", "9223372036854775.808",
                               "1e17", "-9223372036854775.809", "123456789012345678901234567890123456789012"})
    EXPECT_FALSE(MicrosToNs(bad, &ns)) << bad;
}

TEST(ParseKeepingDecimals, KeepsFractionsAsTextAndIntegersAsIntegers) {
  Result<nlohmann::json> doc = ParseKeepingDecimals(R"({"ts": 4458676522690.655, "dur": 12, "x": -1.5e3})", "t.json");
  ASSERT_THAT(doc, IsOk());
  EXPECT_EQ((*doc)["ts"], "4458676522690.655");
  EXPECT_TRUE((*doc)["dur"].is_number_integer());
  EXPECT_EQ((*doc)["x"], "-1.5e3");
}

TEST(ParseKeepingDecimals, MalformedJsonNamesTheByteOffset) {
  EXPECT_THAT(ParseKeepingDecimals(R"({"a": [1, 2,]})", "bad.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("bad.json: byte 13: not valid JSON")));
}

}  // namespace
}  // namespace grainscope::chrome
