#include "base/status.h"

#include <cstdio>
#include <cstdlib>

namespace grainscope {

std::string_view StatusCodeName(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return "ok";
    case StatusCode::kInvalidArgument: return "invalid argument";
    case StatusCode::kNotFound: return "not found";
    case StatusCode::kDataLoss: return "data loss";
    case StatusCode::kUnimplemented: return "unimplemented";
    case StatusCode::kIoError: return "i/o error";
    case StatusCode::kFailedPrecondition: return "failed precondition";
    case StatusCode::kInternal: return "internal error";
  }
  return "unknown";
}

void DieOfValueOnError(const Status& status) {
  std::fprintf(stderr, "grainscope: Result::value() on an error: %s: %s\n",
               std::string(StatusCodeName(status.code())).c_str(), status.message().c_str());
  std::abort();
}

}  // namespace grainscope
