// One entry point for every trace format grainscope reads: picks the reader by the --input-format
// name or, with "auto", by looking at the file's first bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

// Names accepted by ReadTrace's `format` ("auto" included).
std::vector<std::string_view> ReadableFormats();

Result<Trace> ReadTrace(const std::string& path, std::string_view format = "auto");

}  // namespace grainscope
