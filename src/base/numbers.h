// Strict parsing of numbers in text inputs and options: the whole token must be the number.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace grainscope {

// A non-negative decimal integer ("0", "42"); nullopt for anything else, including overflow.
std::optional<int64_t> ParseNonNegativeInt(std::string_view token);

// A non-negative decimal number of `unit_ns` units with at most 9 fractional digits, converted
// exactly to integer nanoseconds: ParseScaledNs("290.5", 1'000'000) == 290'500'000. Fractions finer
// than a nanosecond, overflow and anything not a number give nullopt.
std::optional<int64_t> ParseScaledNs(std::string_view token, int64_t unit_ns);

// A non-negative decimal with at most 3 fractional digits ("12", "10.43"), read exactly to 1/1000
// and returned as a double: the per-event overhead of overhead compensation.
std::optional<double> ParseMilliDecimal(std::string_view token);

}  // namespace grainscope
