#include "base/status.h"

#include <string>

#include <gtest/gtest.h>

namespace grainscope {
namespace {

TEST(ResultTest, ValueOfAnOkResult) {
  Result<std::string> r(std::string("x"));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.value(), "x");
  EXPECT_EQ(std::move(r).value(), "x");
}

TEST(ResultDeathTest, ValueOnAnErrorAbortsPrintingTheStatus) {
  const Result<int> r = NotFound("trace.txt: no such file");
  EXPECT_DEATH((void)r.value(), "Result::value\\(\\) on an error: not found: trace.txt: no such file");
  Result<std::string> moved = DataLoss("truncated");
  EXPECT_DEATH((void)std::move(moved).value(), "data loss: truncated");
}

}  // namespace
}  // namespace grainscope
