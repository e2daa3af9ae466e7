// How the Chrome reader parses JSON. A document is never built whole: its top level is scanned
// (ScanDocument), every member but the event array parsed with nlohmann-json (they are small:
// Kineto's deviceProperties, distributedInfo), and the events are split one by one
// (EventSplitter) and each parsed with simdjson's On-Demand API (EventParser) into the fields the
// reader looks at. Memory stays the events' model, not a DOM of them (nlohmann's took ~8x the
// file; HTA ~7x), and one core reads Kineto JSON at the speed of simdjson's parse of small objects.
//
// A number with a fraction or an exponent is kept as its text (a string), so that times in
// microseconds convert to whole nanoseconds exactly (a double holds 4458676522690.655 only to
// ~1 ns, and a Unix-epoch 1694039968955744.123 not at all), and so that tools which quote their
// numbers (rocprofiler writes "ts":"2678276061325") read the same way.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"

namespace grainscope::chrome {

// A whole JSON text (a document's top-level member, an event's nested argument) as nlohmann's
// DOM, numbers with a fraction kept as text; a malformed one names the byte offset the parser
// stopped at (from 0), counted from `base`.
Result<nlohmann::json> ParseKeepingDecimals(std::string_view content, std::string_view file_name, size_t base = 0);

// A decimal number of microseconds ("12", "-3.5", "4458676522690.655", "1.5e3"), in whole
// nanoseconds rounded half away from zero; false when it is not a number or does not fit in
// int64 nanoseconds.
bool MicrosToNs(std::string_view text, int64_t* ns);

// One value of an event as the reader sees it. Its text lives until the next event is parsed.
struct JsonValue {
  enum Kind : uint8_t { kAbsent, kString, kInteger, kNull, kOther };
  Kind kind = kAbsent;
  // kString: unescaped (a number with a fraction or an exponent: its digits); kInteger: its
  // digits; kOther (true, false, an object, an array): its JSON text.
  std::string_view text;

  bool present() const { return kind != kAbsent; }
  bool is_string() const { return kind == kString; }
  // The integer; nullopt when the value is none or does not fit in int64.
  std::optional<int64_t> Int() const;
  // The value as JSON, one text per value ("5", "\"5\"", "null"): a key to compare ids by.
  std::string Key() const;
  void AppendKey(std::string* out) const;  // Key() appended to `out`, which is kept (no allocation)
};

// An event's "args": its members, flat (a nested object or array is one kOther value).
struct JsonArgs {
  bool present = false;  // "args" is an object
  std::vector<std::pair<std::string_view, JsonValue>> members;

  const JsonValue* Find(std::string_view key) const;  // the last member of that name, or null
  int64_t Int(std::string_view key, int64_t fallback) const;
  std::optional<int64_t> OptionalInt(std::string_view key) const;
  std::string_view String(std::string_view key) const;  // "" when absent or not a string
  // As nlohmann's DOM, for the few events whose arguments outlive the parse (grainscope's
  // message and collective events); null when absent.
  nlohmann::json ToJson() const;
};

// The fields of one trace event the reader uses.
struct JsonEvent {
  JsonValue ph, name, cat, pid, tid, ts, dur, id, id2, bp;
  JsonArgs args;
};

// Parses one event's JSON text. One parser per thread; it keeps its buffers between events.
class EventParser {
 public:
  EventParser();
  ~EventParser();
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;
  // False, with `why`, when `text` is not a valid JSON object; `event` then holds no fields.
  bool Parse(std::string_view text, JsonEvent* event, std::string* why);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Called with a byte offset below which the scan will not look again: a mapped file's pages
// before it may be dropped from memory. May be empty.
using ReleaseBefore = std::function<void(size_t offset)>;

// Where a document's events are, and its other top-level members.
struct DocumentLayout {
  nlohmann::json header = nlohmann::json::object();  // every whole top-level member but "traceEvents"
  size_t events_begin = 0;  // the event array's inside: after its '['
  // The file ends inside the document (a profiler killed while writing; Chrome's array form may
  // leave out its ']' by design): inside the event array, the events up to the last whole one
  // are read; after it (`events_whole`), the members the cut took are missing.
  bool truncated = false;
  bool events_whole = false;  // the event array's ']' was read
};

// Scans `content`: an array of events, or an object with a "traceEvents" array. A malformed top
// level (anything but a truncation) is an error naming the byte offset.
Result<DocumentLayout> ScanDocument(std::string_view content, std::string_view file_name,
                                    const ReleaseBefore& release = nullptr);

// The elements of an event array, one at a time, each as its own JSON text.
class EventSplitter {
 public:
  // `begin`: just after the array's '['.
  EventSplitter(std::string_view content, size_t begin, std::string_view file_name)
      : s_(content), file_(file_name), pos_(begin) {}
  // The next element and its byte offset; false at the array's ']', or at the end of the file
  // (`cut` then says where the incomplete element starts). An error when what separates two
  // elements is not ','.
  Result<bool> Next(std::string_view* element, size_t* offset);
  size_t position() const { return pos_; }  // after the ']' once Next returned false
  bool closed() const { return closed_; }   // the ']' was found
  std::optional<size_t> cut() const { return cut_; }

 private:
  std::string_view s_, file_;
  size_t pos_;
  bool first_ = true, closed_ = false;
  std::optional<size_t> cut_;
};

}  // namespace grainscope::chrome
