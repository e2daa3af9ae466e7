// Strict parsing of numbers in text inputs and options: the whole token must be the number.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace grainscope {

// A non-negative decimal integer ("0", "42"); nullopt for anything else, including overflow.
std::optional<int64_t> ParseNonNegativeInt(std::string_view token);

// A non-negative decimal number of `unit_ns` units with at most 9 fractional digits, converted
// exactly to integer nanoseconds: ParseScaledNs("290.5", 1'000'000) == 290'500'000. Fractions finer
// than a nanosecond, overflow and anything not a number give nullopt.
std::optional<int64_t> ParseScaledNs(std::string_view token, int64_t unit_ns);

// A duration: a non-negative decimal with an optional unit suffix "ns", "us", "ms" or "s" ("5us",
// "1.5ms", "2s"), or without one a number of `default_unit_ns` ("250" = 250 ns by default), read
// exactly as ParseScaledNs does. Negative values, NaN, exponents, overflow: nullopt.
std::optional<int64_t> ParseDurationNs(std::string_view token, int64_t default_unit_ns = 1);

// A duration as ParseDurationNs reads it (without a unit: ns), read exactly to 1/1000 ns and
// returned in ns: "12", "10.43", "10ns", "0.5us". The per-event overhead of overhead compensation
// is a fraction of a nanosecond finer than any clock.
std::optional<double> ParseFineDurationNs(std::string_view token);

// A finite decimal number, the whole token ("0.15", "-2", "1e3"): no NaN, no infinity, no hex
// float, no leading blanks; nullopt otherwise (and for values beyond a double's range).
std::optional<double> ParseFiniteDouble(std::string_view token);


// `token` as an error message quotes it: itself, or when long its first 24 characters and its
// length, so that "--latency 1000...0" does not print a 300-digit number back.
std::string EchoToken(std::string_view token);

}  // namespace grainscope
