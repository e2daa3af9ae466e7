#include "base/numbers.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <string>
#include <utility>

namespace grainscope {

std::optional<int64_t> ParseNonNegativeInt(std::string_view token) {
  if (token.empty() || token[0] < '0' || token[0] > '9') return std::nullopt;
  int64_t value = 0;
  auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), value);
  if (ec != std::errc() || end != token.data() + token.size()) return std::nullopt;
  return value;
}

std::optional<int64_t> ParseScaledNs(std::string_view token, int64_t unit_ns) {
  const size_t dot = token.find('.');
  std::string_view whole = token.substr(0, dot);
  std::optional<int64_t> units = ParseNonNegativeInt(whole);
  if (!units) return std::nullopt;
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (*units > kMax / unit_ns) return std::nullopt;
  int64_t ns = *units * unit_ns;
  if (dot == std::string_view::npos) return ns;

  std::string_view fraction = token.substr(dot + 1);
  if (fraction.empty() || fraction.size() > 9) return std::nullopt;
  // Each fractional digit is worth unit_ns / 10^k ns; it must come out whole.
  int64_t scale = unit_ns;
  for (char c : fraction) {
    if (c < '0' || c > '9') return std::nullopt;
    const int digit = c - '0';
    if (scale % 10 != 0) {
      if (digit != 0) return std::nullopt;  // finer than 1 ns
      continue;
    }
    scale /= 10;
    if (digit * scale > kMax - ns) return std::nullopt;
    ns += digit * scale;
  }
  return ns;
}

namespace {

// A duration's number and unit: "1.5ms" is ("1.5", 1'000'000); without a suffix, `default_unit_ns`.
std::pair<std::string_view, int64_t> SplitDurationUnit(std::string_view token, int64_t default_unit_ns) {
  // Longest suffixes first: "ms" and "ns" end in "s" too.
  static constexpr std::pair<std::string_view, int64_t> kUnits[] = {
      {"ns", 1}, {"us", 1'000}, {"ms", 1'000'000}, {"s", 1'000'000'000}};
  for (const auto& [suffix, unit_ns] : kUnits) {
    if (token.size() > suffix.size() && token.ends_with(suffix))
      return {token.substr(0, token.size() - suffix.size()), unit_ns};
  }
  return {token, default_unit_ns};
}

}  // namespace

std::optional<int64_t> ParseDurationNs(std::string_view token, int64_t default_unit_ns) {
  const auto [number, unit_ns] = SplitDurationUnit(token, default_unit_ns);
  return ParseScaledNs(number, unit_ns);
}

std::optional<double> ParseFineDurationNs(std::string_view token) {
  // Read exactly in thousandths of a nanosecond, then as nanoseconds.
  const auto [number, unit_ns] = SplitDurationUnit(token, 1);
  const std::optional<int64_t> milli = ParseScaledNs(number, unit_ns * 1000);
  if (!milli) return std::nullopt;
  return static_cast<double>(*milli) / 1000.0;
}

std::optional<double> ParseFiniteDouble(std::string_view token) {
  if (token.empty()) return std::nullopt;
  const char first = token[0];
  if (!(first == '-' || first == '+' || first == '.' || (first >= '0' && first <= '9'))) return std::nullopt;
  for (char c : token)  // rules out "nan", "inf", "0x1p3" and blanks; strtod does the rest
    if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '-' || c == '+')) return std::nullopt;
  const std::string text(token);
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string EchoToken(std::string_view token) {
  constexpr size_t kShown = 24;
  if (token.size() <= kShown + 16) return std::string(token);
  return std::string(token.substr(0, kShown)) + "... (" + std::to_string(token.size()) + " characters)";
}

}  // namespace grainscope
