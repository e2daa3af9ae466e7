// How times and ratios are shown to people, and the output formats every report knows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "model/trace.h"

namespace grainscope {

enum class OutputFormat { kText, kJson, kCsv, kSeed, kDot, kSvg };
std::optional<OutputFormat> ParseOutputFormat(std::string_view name);
std::string_view OutputFormatName(OutputFormat f);

// "5.820 s", "20.000 ms", "1.500 us", "12 ns": three decimals in the largest unit that is <= the
// value, so columns of similar times line up.
std::string FormatDuration(TimeNs ns);

// A percentage with one decimal: 0.7775 -> "77.7" (rounded half to even on the printed digit).
std::string FormatPercent(double fraction);

// Nanoseconds in a coarser integer unit (the seed's files are in ms), rounded to nearest.
int64_t ToUnit(TimeNs ns, int64_t unit_ns);
// "ms" -> 1'000'000, "us" -> 1000, "ns" -> 1, "s" -> 1e9.
std::optional<int64_t> ParseTimeUnit(std::string_view name);

// A CSV field, quoted when it holds a comma, quote or newline.
std::string CsvField(std::string_view s);

}  // namespace grainscope
