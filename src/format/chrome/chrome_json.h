// How the Chrome reader parses JSON: nlohmann-json's DOM, except that a number with a fraction
// or an exponent is kept as its text (a JSON string), so that times in microseconds convert to
// whole nanoseconds exactly (a double holds 4458676522690.655 only to ~1 ns, and a Unix-epoch
// 1694039968955744.123 not at all), and so that tools which quote their numbers (rocprofiler
// writes "ts":"2678276061325") read the same way.
#pragma once

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/status.h"


namespace grainscope::chrome {

// The document; a malformed one names the byte offset the parser stopped at.
Result<nlohmann::json> ParseKeepingDecimals(std::string_view content, std::string_view file_name);

// A decimal number of microseconds ("12", "-3.5", "4458676522690.655", "1.5e3"), in whole
// nanoseconds rounded half away from zero; false when it is not a number or does not fit in
// int64 nanoseconds.
bool MicrosToNs(std::string_view text, int64_t* ns);

}  // namespace grainscope::chrome
