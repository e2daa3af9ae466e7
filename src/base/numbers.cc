#include "base/numbers.h"

#include <charconv>
#include <limits>

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

std::optional<double> ParseMilliDecimal(std::string_view token) {
  const std::optional<int64_t> milli = ParseScaledNs(token, 1000);
  if (!milli) return std::nullopt;
  return static_cast<double>(*milli) / 1000.0;
}

}  // namespace grainscope
