// The version and the commit this grainscope was built from (`grainscope --version`). Defined in
// a file cmake/version.cmake writes at every build (build/gen/version.cc).
#pragma once

#include <string_view>

namespace grainscope::cli {

std::string_view Version();  // the project's version, "0.1.0"
std::string_view Commit();   // the git commit, "1a2b3c4d5e6f" (+ "-dirty"), or "unknown"

}  // namespace grainscope::cli
