// GoogleTest matchers for Status and Result<T> (test-only).
//
//   EXPECT_THAT(ReadSeedText(...), StatusIs(StatusCode::kDataLoss, HasSubstr("line 3")));
//   ASSERT_THAT(result, IsOk());
#pragma once

#include <gmock/gmock.h>

#include "base/status.h"

namespace grainscope {

inline const Status& GetStatus(const Status& s) { return s; }
template <typename T>
const Status& GetStatus(const Result<T>& r) {
  static const Status kOk;
  return r.ok() ? kOk : r.status();
}

MATCHER(IsOk, "is ok") {
  const Status& s = GetStatus(arg);
  if (!s.ok()) *result_listener << "status is " << StatusCodeName(s.code()) << ": " << s.message();
  return s.ok();
}

MATCHER_P2(StatusIs, code, message_matcher,
           "has code " + std::string(StatusCodeName(code)) + " and a matching message") {
  const Status& s = GetStatus(arg);
  *result_listener << "status is " << StatusCodeName(s.code()) << ": '" << s.message() << "'";
  return s.code() == code &&
         ::testing::ExplainMatchResult(message_matcher, s.message(), result_listener);
}

}  // namespace grainscope
