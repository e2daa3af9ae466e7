#include "format/projections/projections_log.h"

#include <algorithm>
#include <iterator>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "base/numbers.h"  // EchoToken
#include "format/projections/projections_sts.h"

namespace grainscope::projections {
namespace {

// Projections' record kinds (its ProjDefs, Charm++'s trace-common.h).
enum Kind : int64_t {
  kCreation = 1, kBeginProcessing = 2, kEndProcessing = 3, kBeginComputation = 6, kEndComputation = 7,
  kBeginInterrupt = 8, kEndInterrupt = 9, kBeginTrace = 11, kEndTrace = 12, kUserEvent = 13,
  kBeginIdle = 14, kEndIdle = 15, kBeginPack = 16, kEndPack = 17, kBeginUnpack = 18, kEndUnpack = 19,
  kCreationBcast = 20, kCreationMulticast = 21, kUserSupplied = 26, kUserSuppliedNote = 28,
  kUserSuppliedBracketedNote = 29, kBeginUserEventPair = 98, kEndUserEventPair = 99, kUserEventPair = 100,
};

// Reads `n` blank-separated integers off the front of `rest` into `out`; false when there are
// fewer or one is not an integer (or does not fit 62 bits). Hand-rolled: it is most of the
// reader's time.
bool ReadInts(std::string_view& rest, int64_t* out, int n) {
  const char* p = rest.data();
  const char* const end = p + rest.size();
  for (int i = 0; i < n; ++i) {
    while (p != end && (*p == ' ' || *p == '\t' || *p == '\r')) ++p;
    const bool negative = p != end && *p == '-';
    p += negative;
    const char* const digits = p;
    int64_t v = 0;
    for (; p != end && *p >= '0' && *p <= '9'; ++p) {
      if (v > (int64_t{1} << 58)) return false;
      v = v * 10 + (*p - '0');
    }
    if (p == digits || (p != end && *p != ' ' && *p != '\t' && *p != '\r')) return false;
    out[i] = negative ? -v : v;
  }
  rest.remove_prefix(static_cast<size_t>(p - rest.data()));
  return true;
}

// Microseconds since the run began, in nanoseconds; nullopt when out of range.
std::optional<TimeNs> TimeOf(int64_t us) {
  if (us < 0 || us > std::numeric_limits<TimeNs>::max() / 1000) return std::nullopt;
  return us * 1000;
}

uint64_t MessageKey(int64_t pe, int64_t event) {
  return (static_cast<uint64_t>(static_cast<uint32_t>(pe)) << 32) | static_cast<uint32_t>(event);
}

// The region and whether it begins, of a record that only brackets time on its PE.
struct BracketKind {
  std::string_view name;
  RegionRole role;
  bool begins;
};
std::optional<BracketKind> BracketOf(int64_t kind) {
  switch (kind) {
    case kBeginComputation: return BracketKind{"Computation", RegionRole::kFunction, true};
    case kEndComputation: return BracketKind{"Computation", RegionRole::kFunction, false};
    case kBeginInterrupt: return BracketKind{"Interrupt", RegionRole::kOther, true};
    case kEndInterrupt: return BracketKind{"Interrupt", RegionRole::kOther, false};
    case kBeginIdle: return BracketKind{"Idle", RegionRole::kOther, true};
    case kEndIdle: return BracketKind{"Idle", RegionRole::kOther, false};
    case kBeginPack: return BracketKind{"Pack", RegionRole::kFunction, true};
    case kEndPack: return BracketKind{"Pack", RegionRole::kFunction, false};
    case kBeginUnpack: return BracketKind{"Unpack", RegionRole::kFunction, true};
    case kEndUnpack: return BracketKind{"Unpack", RegionRole::kFunction, false};
    default: return std::nullopt;
  }
}

}  // namespace

void LogReader::Read(std::string_view text, std::string_view file, bool truncated, LogRows& rows) {
  files_.emplace_back(file);
  line_ = 0;
  open_.clear();
  user_pairs_.clear();
  for (size_t begin = 0; begin < text.size();) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) {
      if (truncated) break;  // the record the file was cut in
      end = text.size();
    }
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos || line.starts_with("PROJECTIONS-RECORD")) continue;
    std::string_view fields = line;
    int64_t kind = 0;
    std::string why = ReadInts(fields, &kind, 1) ? ReadRecord(kind, fields, rows) : "expected a record kind (a number)";
    if (why.empty()) continue;
    if (invalid_++ == 0) first_invalid_ = fmt::format("{}:{}: {}: {}", files_.back(), line_, why, EchoToken(line));
  }
  FinishUserPairs(rows);
}

void LogReader::Bracket(LogRows& rows, TimeNs t, bool enter, uint32_t region) {
  rows.push_back({t, enter ? RowKind::kEnter : RowKind::kLeave, region});
  if (enter) {
    open_.push_back(region);
  } else if (const auto it = std::find(open_.rbegin(), open_.rend(), region); it != open_.rend()) {
    open_.erase(std::next(it).base());
  }
}

// Charm++ ends computation from inside the entry method that shuts it down: that method, and
// whatever else is open inside Computation, ends there.
void LogReader::CloseInside(LogRows& rows, TimeNs t, uint32_t computation) {
  if (std::find(open_.begin(), open_.end(), computation) == open_.end()) return;
  while (!open_.empty() && open_.back() != computation) {
    if (closed_++ == 0) {
      const RegionKey& r = regions_[open_.back()];
      first_closed_ = fmt::format("{}:{}: '{}' still open when computation ended, closed there", files_.back(), line_,
                                  r.entry >= 0 ? sts_.EntryName(r.entry) : r.name);
    }
    Bracket(rows, t, false, open_.back());
  }
}

// A user event pair whose second record never came: a marker at its begin.
void LogReader::FinishUserPairs(LogRows& rows) {
  for (const auto& [key, begin] : user_pairs_) {
    const auto it = sts_.user_events.find(key.first);
    rows.push_back({begin, RowKind::kMarker, Label(it != sts_.user_events.end() ? it->second : fmt::format("user event {}", key.first))});
  }
  user_pairs_.clear();
}

std::string LogReader::ReadRecord(int64_t kind, std::string_view fields, LogRows& rows) {
  if (const std::optional<BracketKind> b = BracketOf(kind)) {
    int64_t us = 0;
    const std::optional<TimeNs> t = ReadInts(fields, &us, 1) ? TimeOf(us) : std::nullopt;
    if (!t) return "expected a time";
    const uint32_t region = NamedRegion(b->name, b->role);
    if (kind == kEndComputation) CloseInside(rows, *t, region);
    Bracket(rows, *t, b->begins, region);
    return "";
  }
  if (kind == kBeginTrace || kind == kEndTrace) {
    int64_t us = 0;
    const std::optional<TimeNs> t = ReadInts(fields, &us, 1) ? TimeOf(us) : std::nullopt;
    if (!t) return "expected a time";
    rows.push_back({*t, RowKind::kMarker, Label(kind == kBeginTrace ? "tracing on" : "tracing off")});
    return "";
  }
  switch (kind) {
    case kCreation: case kCreationBcast: case kCreationMulticast: case kBeginProcessing: case kEndProcessing:
      return ReadMessageRecord(kind, fields, rows);
    case kUserEvent: case kUserEventPair: case kBeginUserEventPair: case kEndUserEventPair: case kUserSupplied:
    case kUserSuppliedNote: case kUserSuppliedBracketedNote:
      return ReadUserRecord(kind, fields, rows);
    default:
      // Enqueue, dequeue, message receipt, memory usage, user statistics, phases, functions.
      if (skipped_++ == 0) first_skipped_ = fmt::format("{}:{}: record kind {}", files_.back(), line_, kind);
      return "";
  }
}

// Creation (of one message, a broadcast or a multicast), begin and end of processing: message
// type, entry, time, event, PE, bytes, then what this reader does not need.
std::string LogReader::ReadMessageRecord(int64_t kind, std::string_view fields, LogRows& rows) {
  int64_t f[6] = {};
  const int needed = kind == kEndProcessing ? 3 : 6;
  if (!ReadInts(fields, f, needed)) return fmt::format("expected {} numbers after the kind", needed);
  const std::optional<TimeNs> t = TimeOf(f[2]);
  if (!t) return "expected a time";
  if (f[1] < 0 || f[1] > INT32_MAX) return "expected an entry number";
  const auto entry = static_cast<int32_t>(f[1]);
  if (kind == kEndProcessing) {
    Bracket(rows, *t, false, EntryRegion(entry));
    return "";
  }
  const int64_t event = f[3], pe = f[4];
  const uint64_t bytes = f[5] < 0 ? 0 : static_cast<uint64_t>(f[5]);
  const bool message = event >= 0 && pe >= 0 && event <= UINT32_MAX && pe <= INT32_MAX;
  if (kind == kBeginProcessing) {
    Bracket(rows, *t, true, EntryRegion(entry));
    if (!message) return "";
    rows.push_back({*t, RowKind::kProcessing, static_cast<uint32_t>(processings_.size())});
    processings_.push_back({MessageKey(pe, event), bytes, entry, MessageId(), FileNumber(), line_});
    return "";
  }
  if (!message) return "expected the creating PE and event number";
  rows.push_back({*t, RowKind::kCreation, static_cast<uint32_t>(creations_.size())});
  creations_.push_back({MessageKey(pe, event), bytes, entry, 0, MessageId(), false, FileNumber(), line_});
  return "";
}

// User events (id, time), pairs of them (id, time), user-supplied values (value, time), notes
// (time, length, text) and bracketed notes (begin, end, event id, length, text).
std::string LogReader::ReadUserRecord(int64_t kind, std::string_view fields, LogRows& rows) {
  int64_t f[3] = {};
  const int needed = kind == kUserSuppliedBracketedNote || kind == kUserEventPair ? 3 : kind == kUserSuppliedNote ? 1 : 2;
  if (!ReadInts(fields, f, needed)) return fmt::format("expected {} numbers after the kind", needed);
  const int time_field = kind == kUserSuppliedNote || kind == kUserSuppliedBracketedNote ? 0 : 1;
  const std::optional<TimeNs> t = TimeOf(f[time_field]);
  if (!t) return "expected a time";
  auto event_name = [&](int64_t id) {
    const auto it = sts_.user_events.find(id);
    return it != sts_.user_events.end() ? it->second : fmt::format("user event {}", id);
  };
  int64_t length = 0;
  const bool has_text = kind == kUserSuppliedNote || kind == kUserSuppliedBracketedNote;
  if (has_text && !ReadInts(fields, &length, 1)) return "expected the note's length";
  const std::string_view note = has_text && !fields.empty() ? fields.substr(1) : std::string_view();
  switch (kind) {
    case kUserEvent: rows.push_back({*t, RowKind::kMarker, Label(event_name(f[0]))}); break;
    case kUserEventPair: {  // written twice, at the begin and at the end (traceUserBracketEvent)
      const auto [it, first] = user_pairs_.try_emplace({f[0], f[2]}, *t);
      if (first) break;
      const uint32_t r = NamedRegion(event_name(f[0]), RegionRole::kFunction);
      rows.push_back({it->second, RowKind::kEnter, r});
      rows.push_back({*t, RowKind::kLeave, r});
      user_pairs_.erase(it);
      break;
    }
    case kBeginUserEventPair: Bracket(rows, *t, true, NamedRegion(event_name(f[0]), RegionRole::kFunction)); break;
    case kEndUserEventPair: Bracket(rows, *t, false, NamedRegion(event_name(f[0]), RegionRole::kFunction)); break;
    case kUserSupplied: rows.push_back({*t, RowKind::kMarker, Label(fmt::format("user supplied {}", f[0]))}); break;
    case kUserSuppliedNote: rows.push_back({*t, RowKind::kMarker, Label(std::string(note))}); break;
    default: {  // a bracketed note: its event's region from begin to end
      const std::optional<TimeNs> end = TimeOf(f[1]);
      if (!end || *end < *t) return "expected an end time after the begin";
      const uint32_t r = NamedRegion(event_name(f[2]), RegionRole::kFunction);
      rows.push_back({*t, RowKind::kEnter, r});
      rows.push_back({*end, RowKind::kLeave, r});
    }
  }
  return "";
}

std::string LogReader::Where(uint32_t file, uint32_t line) const { return fmt::format("{}:{}", files_[file], line); }

uint32_t LogReader::EntryRegion(int64_t entry) {
  auto [it, inserted] = entry_regions_.try_emplace(entry, static_cast<uint32_t>(regions_.size()));
  if (inserted) regions_.push_back({entry, {}, RegionRole::kGrain});
  return it->second;
}

uint32_t LogReader::NamedRegion(std::string_view name, RegionRole role) {
  auto [it, inserted] = named_regions_.try_emplace(std::string(name), static_cast<uint32_t>(regions_.size()));
  if (inserted) regions_.push_back({-1, std::string(name), role});
  return it->second;
}

uint32_t LogReader::Label(std::string label) {
  auto [it, inserted] = label_ids_.try_emplace(label, static_cast<uint32_t>(labels_.size()));
  if (inserted) labels_.push_back(std::move(label));
  return it->second;
}

void LogReader::Report(Diagnostics& d) const {
  d.AddCount(Diag::kUnclosedRegions, closed_, first_closed_);
  d.AddCount(Diag::kSkippedRecords, skipped_, first_skipped_);
  d.AddCount(Diag::kInvalidRecords, invalid_, first_invalid_);
}

}  // namespace grainscope::projections
