// Reading whole files and writing output files atomically.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace grainscope {

// The whole content of `path`, or an error naming the file and the reason.
Result<std::string> ReadFile(const std::string& path);

// Writes `content` to `path` through a temporary file in the same directory and a rename, so a
// reader of `path` sees either the old file or the complete new one, never half of it.
Status WriteFileAtomically(const std::string& path, std::string_view content);

}  // namespace grainscope
