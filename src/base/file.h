// Reading whole files, and writing a file that must not exist yet. Outputs a user names (-o, a
// converted trace) are written through base/output_target.h, which decides what may be replaced.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace grainscope {

// The whole content of `path`, or an error naming the file and the reason.
Result<std::string> ReadFile(const std::string& path);

// Creates `path` (O_EXCL: fails when anything is there) and writes `content`; on failure the
// file it created is removed again.
Status WriteNewFile(const std::string& path, std::string_view content);

}  // namespace grainscope
