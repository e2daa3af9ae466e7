#include "report/units.h"

#include <cstdlib>

#include <fmt/format.h>

namespace grainscope {

std::optional<OutputFormat> ParseOutputFormat(std::string_view name) {
  if (name == "text") return OutputFormat::kText;
  if (name == "json") return OutputFormat::kJson;
  if (name == "csv") return OutputFormat::kCsv;
  if (name == "seed") return OutputFormat::kSeed;
  if (name == "dot") return OutputFormat::kDot;
  if (name == "svg") return OutputFormat::kSvg;
  return std::nullopt;
}

std::string_view OutputFormatName(OutputFormat f) {
  switch (f) {
    case OutputFormat::kText: return "text";
    case OutputFormat::kJson: return "json";
    case OutputFormat::kCsv: return "csv";
    case OutputFormat::kSeed: return "seed";
    case OutputFormat::kDot: return "dot";
    case OutputFormat::kSvg: return "svg";
  }
  return "?";
}

std::string FormatDuration(TimeNs ns) {
  const TimeNs a = ns < 0 ? -ns : ns;
  if (a >= 1'000'000'000) return fmt::format("{:.3f} s", static_cast<double>(ns) / 1e9);
  if (a >= 1'000'000) return fmt::format("{:.3f} ms", static_cast<double>(ns) / 1e6);
  if (a >= 1'000) return fmt::format("{:.3f} us", static_cast<double>(ns) / 1e3);
  return fmt::format("{} ns", ns);
}

std::string FormatPercent(double fraction) { return fmt::format("{:.1f}", fraction * 100.0); }

int64_t ToUnit(TimeNs ns, int64_t unit_ns) {
  if (unit_ns == 1) return ns;
  const int64_t q = ns / unit_ns, r = ns % unit_ns;
  if (2 * std::llabs(r) >= unit_ns) return ns < 0 ? q - 1 : q + 1;
  return q;
}

std::optional<int64_t> ParseTimeUnit(std::string_view name) {
  if (name == "s") return 1'000'000'000;
  if (name == "ms") return 1'000'000;
  if (name == "us") return 1'000;
  if (name == "ns") return 1;
  return std::nullopt;
}

std::string CsvField(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

}  // namespace grainscope
