#include "format/chrome/chrome_json.h"

#include <array>
#include <cctype>
#include <charconv>
#include <cstring>
#include <string>

#include <fmt/format.h>
#include <simdjson.h>

namespace grainscope::chrome {
namespace {

using json = nlohmann::json;
namespace od = simdjson::ondemand;

constexpr size_t kNone = std::string_view::npos;
constexpr size_t kReleaseStep = size_t{512} << 10;  // bytes scanned between two ReleaseBefore calls

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

bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

size_t SkipSpace(std::string_view s, size_t p) {
  while (p < s.size() && IsSpace(s[p])) ++p;
  return p;
}

// `p` at a string's opening quote: the position after its closing quote, or kNone when the text
// ends first. A quote is escaped when an odd number of backslashes precede it.
size_t SkipString(std::string_view s, size_t p) {
  for (++p;;) {
    const void* q = p < s.size() ? std::memchr(s.data() + p, '"', s.size() - p) : nullptr;
    if (q == nullptr) return kNone;
    const size_t quote = static_cast<size_t>(static_cast<const char*>(q) - s.data());
    size_t b = quote;
    while (b > p && s[b - 1] == '\\') --b;
    if ((quote - b) % 2 == 0) return quote + 1;
    p = quote + 1;
  }
}

constexpr std::array<bool, 256> kBrackets = [] {
  std::array<bool, 256> t{};
  for (unsigned char c : std::string_view("\"{}[]")) t[c] = true;
  return t;
}();

// `p` at a value's first byte: the position after it, or kNone when the text ends inside it.
// Brackets are counted, not matched by kind: what is inside an event is checked by its parser.
size_t SkipValue(std::string_view s, size_t p) {
  if (s[p] == '"') return SkipString(s, p);
  if (s[p] != '{' && s[p] != '[') {
    while (p < s.size() && s[p] != ',' && s[p] != '}' && s[p] != ']' && !IsSpace(s[p])) ++p;
    return p;
  }
  size_t depth = 0;
  for (size_t i = p; i < s.size(); ++i) {
    const char c = s[i];
    if (!kBrackets[static_cast<unsigned char>(c)]) continue;
    if (c == '"') {
      i = SkipString(s, i);
      if (i == kNone) return kNone;
      --i;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if (--depth == 0) {
      return i + 1;
    }
  }
  return kNone;
}

Status NotJson(std::string_view file, size_t at, std::string_view what) {
  return DataLoss(fmt::format("{}: byte {}: not valid JSON: {}", file, at, what));
}

Status NoEventArray(std::string_view file) {
  return DataLoss(fmt::format("{}: expected a JSON array of trace events or an object with a \"traceEvents\" array", file));
}

// A JSON number's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?; `integer` when it has
// neither fraction nor exponent.
bool IsJsonNumber(std::string_view t, bool* integer) {
  size_t i = 0;
  auto digits = [&] {
    const size_t from = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    return i > from;
  };
  if (i < t.size() && t[i] == '-') ++i;
  if (i < t.size() && t[i] == '0') {
    ++i;
  } else if (!digits()) {
    return false;
  }
  *integer = i == t.size();
  if (i < t.size() && t[i] == '.' && (++i, !digits())) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    if (!digits()) return false;
  }
  return i == t.size();
}

std::string_view TrimRight(std::string_view t) {
  while (!t.empty() && IsSpace(t.back())) t.remove_suffix(1);
  return t;
}

}  // namespace

Result<json> ParseKeepingDecimals(std::string_view content, std::string_view file_name, size_t base) {
  json doc;
  try {
    DecimalKeepingBuilder builder(doc, /*allow_exceptions=*/true);
    json::sax_parse(content.begin(), content.end(), &builder);
  } catch (const json::parse_error& e) {
    std::string what = e.what();
    if (size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
    return NotJson(file_name, base + (e.byte > 0 ? e.byte - 1 : 0), what);  // nlohmann counts from 1
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

std::optional<int64_t> JsonValue::Int() const {
  if (kind != kInteger) return std::nullopt;
  int64_t v = 0;
  const char* end = text.data() + text.size();
  if (std::from_chars(text.data(), end, v).ptr != end) return std::nullopt;
  return v;
}

std::string JsonValue::Key() const {
  std::string key;
  AppendKey(&key);
  return key;
}

void JsonValue::AppendKey(std::string* out) const {
  switch (kind) {
    case kString:
      *out += '"';
      *out += text;
      *out += '"';
      return;
    case kNull: *out += "null"; return;
    case kAbsent: return;
    default: *out += text;
  }
}

const JsonValue* JsonArgs::Find(std::string_view key) const {
  for (size_t i = members.size(); i-- > 0;)
    if (members[i].first == key) return &members[i].second;
  return nullptr;
}

int64_t JsonArgs::Int(std::string_view key, int64_t fallback) const { return OptionalInt(key).value_or(fallback); }

std::optional<int64_t> JsonArgs::OptionalInt(std::string_view key) const {
  const JsonValue* v = Find(key);
  return v != nullptr ? v->Int() : std::nullopt;
}

std::string_view JsonArgs::String(std::string_view key) const {
  const JsonValue* v = Find(key);
  return v != nullptr && v->is_string() ? v->text : std::string_view();
}

json JsonArgs::ToJson() const {
  if (!present) return nullptr;
  json out = json::object();
  for (const auto& [key, v] : members) {
    json& slot = out[std::string(key)];
    if (v.kind == JsonValue::kString) {
      slot = std::string(v.text);
    } else if (v.kind == JsonValue::kInteger || v.kind == JsonValue::kOther) {
      Result<json> parsed = ParseKeepingDecimals(v.text, "args");
      if (parsed.ok()) slot = std::move(*parsed);
    }
  }
  return out;
}

struct EventParser::Impl {
  od::parser parser;
  std::string padded;  // the event's text and the zeros simdjson may read past its end

  // One value into `out`; false (with `why`) when it is malformed.
  static bool Read(od::value v, JsonValue* out, std::string* why) {
    od::json_type type;
    simdjson::error_code e = v.type().get(type);
    if (!e) e = ReadTyped(v, type, out, why);
    if (e) *why = fmt::format("not valid JSON: {}", simdjson::error_message(e));
    return !e && why->empty();
  }

  static simdjson::error_code ReadTyped(od::value v, od::json_type type, JsonValue* out, std::string* why) {
    switch (type) {
      case od::json_type::string:
        out->kind = JsonValue::kString;
        return v.get_string().get(out->text);
      case od::json_type::number: {
        const std::string_view token = TrimRight(v.raw_json_token());
        bool integer = false;
        if (!IsJsonNumber(token, &integer)) *why = fmt::format("not valid JSON: '{}' is not a number", token);
        out->kind = integer ? JsonValue::kInteger : JsonValue::kString;
        out->text = token;
        return simdjson::SUCCESS;
      }
      case od::json_type::null:
        out->kind = JsonValue::kNull;
        out->text = "null";
        return v.is_null().error();
      case od::json_type::boolean: {
        bool b = false;
        out->kind = JsonValue::kOther;
        if (auto e = v.get_bool().get(b)) return e;
        out->text = b ? "true" : "false";
        return simdjson::SUCCESS;
      }
      case od::json_type::object: {
        out->kind = JsonValue::kOther;
        od::object o;
        if (auto e = v.get_object().get(o)) return e;
        return o.raw_json().get(out->text);
      }
      case od::json_type::array: {
        out->kind = JsonValue::kOther;
        od::array a;
        if (auto e = v.get_array().get(a)) return e;
        return a.raw_json().get(out->text);
      }
    }
    return simdjson::INCORRECT_TYPE;
  }

  static bool ReadArgs(od::value v, JsonArgs* args, std::string* why) {
    od::json_type type;
    if (auto e = v.type().get(type)) return Fail(e, why);
    if (type != od::json_type::object) {
      JsonValue ignored;
      return Read(v, &ignored, why);  // checked, not kept: "args" that is no object is none
    }
    od::object o;
    if (auto e = v.get_object().get(o)) return Fail(e, why);
    args->present = true;
    for (auto field : o) {
      std::string_view key;
      if (auto e = field.unescaped_key().get(key)) return Fail(e, why);
      od::value member;
      if (auto e = field.value().get(member)) return Fail(e, why);
      args->members.emplace_back(key, JsonValue{});
      if (!Read(member, &args->members.back().second, why)) return false;
    }
    return true;
  }

  static bool Fail(simdjson::error_code e, std::string* why) {
    *why = fmt::format("not valid JSON: {}", simdjson::error_message(e));
    return false;
  }

  static JsonValue* Slot(JsonEvent* ev, std::string_view key) {
    if (key.size() > 4 || key.empty()) return nullptr;
    switch (key[0]) {
      case 'p': return key == "ph" ? &ev->ph : key == "pid" ? &ev->pid : nullptr;
      case 'n': return key == "name" ? &ev->name : nullptr;
      case 'c': return key == "cat" ? &ev->cat : nullptr;
      case 't': return key == "tid" ? &ev->tid : key == "ts" ? &ev->ts : nullptr;
      case 'd': return key == "dur" ? &ev->dur : nullptr;
      case 'i': return key == "id" ? &ev->id : key == "id2" ? &ev->id2 : nullptr;
      case 'b': return key == "bp" ? &ev->bp : nullptr;
      default: return nullptr;
    }
  }
};

EventParser::EventParser() : impl_(std::make_unique<Impl>()) {}
EventParser::~EventParser() = default;

bool EventParser::Parse(std::string_view text, JsonEvent* event, std::string* why) {
  event->args.members.clear();  // keeps its capacity: no allocation per event
  event->args.present = false;
  event->ph = event->name = event->cat = event->pid = event->tid = event->ts = event->dur = event->id = event->id2 =
      event->bp = JsonValue{};
  why->clear();
  std::string& padded = impl_->padded;
  padded.resize(text.size() + simdjson::SIMDJSON_PADDING);
  std::memcpy(padded.data(), text.data(), text.size());
  od::document doc;
  if (auto e = impl_->parser.iterate(padded.data(), text.size(), padded.size()).get(doc)) return Impl::Fail(e, why);
  od::json_type type;
  if (auto e = doc.type().get(type)) return Impl::Fail(e, why);
  if (type != od::json_type::object) {
    static constexpr std::string_view kNames[] = {"array", "object", "number", "string", "boolean", "null"};
    const size_t k = static_cast<size_t>(type) - 1;
    *why = fmt::format("expected an object, got {}", k < std::size(kNames) ? kNames[k] : "a value");
    return false;
  }
  od::object obj;
  if (auto e = doc.get_object().get(obj)) return Impl::Fail(e, why);
  for (auto field : obj) {
    std::string_view key;
    if (auto e = field.unescaped_key().get(key)) return Impl::Fail(e, why);
    od::value v;
    if (auto e = field.value().get(v)) return Impl::Fail(e, why);
    if (key == "args") {
      event->args.members.clear();
      event->args.present = false;
      if (!Impl::ReadArgs(v, &event->args, why)) return false;
    } else if (JsonValue* slot = Impl::Slot(event, key); slot != nullptr) {
      if (!Impl::Read(v, slot, why)) return false;
    }
  }
  return true;
}

namespace {

// The event array from `begin` (after its '['), skipped element by element, freeing what it
// passed: false when the file ends inside it; `*p` then after its ']'.
Result<bool> SkipEvents(std::string_view s, size_t begin, std::string_view file, const ReleaseBefore& release,
                        DocumentLayout* out, size_t* p) {
  out->events_begin = begin;
  EventSplitter events(s, begin, file);
  std::string_view element;
  size_t offset = 0, next_release = kReleaseStep;
  for (;;) {
    GS_ASSIGN_OR_RETURN(const bool more, events.Next(&element, &offset));
    if (!more) break;
    if (release && offset >= next_release) {
      release(offset);
      next_release = offset + kReleaseStep;
    }
  }
  *p = events.position();
  out->truncated = !events.closed();
  out->events_whole = events.closed();
  return events.closed();
}

// The member name whose quotes are at `p` and `end` - 1, unescaped.
Result<std::string> MemberName(std::string_view s, size_t p, size_t end, std::string_view file) {
  std::string key(s.substr(p + 1, end - p - 2));
  if (key.find('\\') == std::string::npos) return key;
  GS_ASSIGN_OR_RETURN(json k, ParseKeepingDecimals(s.substr(p, end - p), file, p));
  return k.get<std::string>();
}

}  // namespace

Result<DocumentLayout> ScanDocument(std::string_view s, std::string_view file, const ReleaseBefore& release) {
  DocumentLayout out;
  size_t p = SkipSpace(s, 0);
  if (p < s.size() && s[p] == '[') {
    GS_ASSIGN_OR_RETURN(const bool closed, SkipEvents(s, p + 1, file, release, &out, &p));
    if (closed && (p = SkipSpace(s, p)) < s.size()) return NotJson(file, p, "unexpected content after the document");
    return out;
  }
  if (p >= s.size() || s[p] != '{') return NotJson(file, p, "expected '{' or '['");
  bool found = false, ended = false;  // ended: the file ends inside the document
  for (p = SkipSpace(s, p + 1); p < s.size() && s[p] != '}';) {
    if (s[p] != '"') return NotJson(file, p, "expected a member name");
    const size_t key_end = SkipString(s, p);
    if ((ended = key_end == kNone)) break;
    GS_ASSIGN_OR_RETURN(const std::string key, MemberName(s, p, key_end, file));
    p = SkipSpace(s, key_end);
    if (p < s.size() && s[p] != ':') return NotJson(file, p, "expected ':'");
    p = SkipSpace(s, p + 1);
    if ((ended = p >= s.size())) break;
    if (key == "traceEvents" && s[p] == '[') {
      found = true;
      GS_ASSIGN_OR_RETURN(const bool closed, SkipEvents(s, p + 1, file, release, &out, &p));
      if ((ended = !closed)) break;
    } else {
      const size_t value_end = SkipValue(s, p);
      // A scalar that runs to the end of the file may be cut ("baseTimeNanoseconds": 17): unused.
      if ((ended = value_end == kNone || value_end == s.size())) break;
      GS_ASSIGN_OR_RETURN(out.header[key], ParseKeepingDecimals(s.substr(p, value_end - p), file, p));
      p = value_end;
    }
    if ((ended = (p = SkipSpace(s, p)) >= s.size())) break;
    if (s[p] == ',') {
      p = SkipSpace(s, p + 1);
      if (p < s.size() && s[p] == '}') return NotJson(file, p, "expected a member name after ','");
    } else if (s[p] != '}') {
      return NotJson(file, p, "expected ',' or '}'");
    }
  }
  if (ended || p >= s.size()) {
    if (!found) return NotJson(file, s.size(), "the file ends before the document does");
    out.truncated = true;
    return out;
  }
  if ((p = SkipSpace(s, p + 1)) < s.size()) return NotJson(file, p, "unexpected content after the document");
  if (!found) return NoEventArray(file);
  return out;
}

Result<bool> EventSplitter::Next(std::string_view* element, size_t* offset) {
  if (closed_ || cut_) return false;
  size_t p = SkipSpace(s_, pos_);
  if (!first_ && p < s_.size() && s_[p] != ']') {
    if (s_[p] != ',') return NotJson(file_, p, "expected ',' or ']' after an event");
    p = SkipSpace(s_, p + 1);
  }
  first_ = false;
  if (p < s_.size() && s_[p] == ']') {
    closed_ = true;
    pos_ = p + 1;
    return false;
  }
  const size_t e = p < s_.size() ? SkipValue(s_, p) : kNone;
  if (e == kNone) {
    cut_ = p;
    pos_ = s_.size();
    return false;
  }
  *element = s_.substr(p, e - p);
  *offset = p;
  pos_ = e;
  return true;
}
}  // namespace grainscope::chrome
