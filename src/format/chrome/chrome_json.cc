#include "format/chrome/chrome_json.h"

#include <cctype>
#include <string>

#include <fmt/format.h>

namespace grainscope::chrome {
namespace {

using json = nlohmann::json;

// nlohmann's DOM builder, with fractional numbers stored as their text. The SAX interface is
// static (sax_parse is a template over the handler), so hiding number_float is enough.
class DecimalKeepingBuilder : public nlohmann::detail::json_sax_dom_parser<json> {
 public:
  using json_sax_dom_parser::json_sax_dom_parser;
  bool number_float(json::number_float_t /*value*/, const std::string& text) {
    std::string copy = text;
    return string(copy);
  }
};

// 10^k for k in [0, 38], as a 128-bit integer.
__int128 Pow10(int k) {
  __int128 p = 1;
  while (k-- > 0) p *= 10;
  return p;
}

}  // namespace

Result<json> ParseKeepingDecimals(std::string_view content, std::string_view file_name) {
  json doc;
  try {
    DecimalKeepingBuilder builder(doc, /*allow_exceptions=*/true);
    json::sax_parse(content.begin(), content.end(), &builder);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return DataLoss(fmt::format("{}: byte {}: not valid JSON: {}", file_name, e.byte, what));
  } catch (const json::exception& e) {
    return DataLoss(fmt::format("{}: not valid JSON: {}", file_name, e.what()));
  }
  return doc;
}

bool MicrosToNs(std::string_view text, int64_t* ns) {
  size_t i = 0;
  const bool negative = i < text.size() && text[i] == '-';
  if (negative || (i < text.size() && text[i] == '+')) ++i;
  // The value is digits * 10^scale. Beyond 36 significant digits the rest are dropped: far
  // outside int64 nanoseconds anyway, or below a nanosecond.
  __int128 digits = 0;
  int scale = 0, significant = 0;
  bool any = false;
  auto keep = [&](char c) {  // true when the digit became part of `digits`
    any = true;
    if (significant >= 36) return false;
    digits = digits * 10 + (c - '0');
    if (digits != 0) ++significant;  // leading zeros carry no precision
    return true;
  };
  for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
    if (!keep(text[i])) ++scale;
  if (i < text.size() && text[i] == '.') {
    for (++i; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i)
      if (keep(text[i])) --scale;
  }
  if (!any) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    const bool exp_negative = i < text.size() && text[i] == '-';
    if (exp_negative || (i < text.size() && text[i] == '+')) ++i;
    int exp = 0;
    bool exp_any = false;
    for (; i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])); ++i) {
      exp_any = true;
      if (exp < 10000) exp = exp * 10 + (text[i] - '0');
    }
    if (!exp_any) return false;
    scale += exp_negative ? -exp : exp;
  }
  if (i != text.size()) return false;
  scale += 3;  // microseconds -> nanoseconds
  __int128 v = digits;
  if (v != 0 && scale > 0) {
    if (scale > 19 || v > Pow10(38 - scale)) return false;
    v *= Pow10(scale);
  } else if (scale < 0) {
    if (scale < -38) {
      v = 0;
    } else {
      const __int128 d = Pow10(-scale);
      v = (v + d / 2) / d;  // half away from zero (v is the magnitude)
    }
  }
  if (v > static_cast<__int128>(INT64_MAX)) return false;
  *ns = static_cast<int64_t>(negative ? -v : v);
  return true;
}

}  // namespace grainscope::chrome
