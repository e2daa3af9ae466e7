#include "format/seedtext/seedtext_reader.h"

#include <algorithm>
#include <array>
#include <deque>
#include <map>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "base/numbers.h"
#include "base/progress.h"
#include "model/message_matcher.h"
#include "model/metadata_keys.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

constexpr int64_t kNsPerMs = 1'000'000;

enum class RecordKind : uint8_t { kStart, kStop, kSendBegin, kSendEnd, kRecvBegin, kRecvEnd };
constexpr std::array<std::string_view, 6> kKeywords = {"start",   "stop",      "sendBegin",
                                                       "sendEnd", "recvBegin", "recvEnd"};

bool IsGrainRecord(RecordKind k) { return k == RecordKind::kStart || k == RecordKind::kStop; }

struct Record {
  RecordKind kind;
  uint32_t line;
  int64_t processor = 0;       // start/stop
  std::string_view structure;  // arcs: the name, unescaped (into the parser's name store)
  uint32_t channel = 0;        // arcs: the structure's dense id (ChannelIds), what pairs halves and arcs
  int64_t grain = 0;
  TimeNs time = 0;
};

// A grain's execution: its start and stop records.
struct GrainRun {
  int64_t processor;
  int64_t grain;
  const Record* start;
  const Record* stop = nullptr;
};

// One half of an arc (its send or its receive): the Begin and End records.
struct ArcHalf {
  const Record* begin;
  const Record* end = nullptr;
};

std::string FormatMs(TimeNs ns) {
  if (ns % kNsPerMs == 0) return fmt::format("{} ms", ns / kNsPerMs);
  std::string s = fmt::format("{}.{:06d}", ns / kNsPerMs, ns % kNsPerMs);
  while (s.back() == '0') s.pop_back();
  return s + " ms";
}

std::string_view Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

bool IsBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Splits on spaces and tabs; at most `max` tokens are kept, `count` says how many there were.
size_t Tokenize(std::string_view s, std::string_view* out, size_t max) {
  size_t count = 0;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && IsBlank(s[i])) ++i;
    if (i >= s.size()) break;
    size_t j = i;
    while (j < s.size() && !IsBlank(s[j])) ++j;
    if (count < max) out[count] = s.substr(i, j - i);
    ++count;
    i = j;
  }
  return count;
}

// An arc line split as "<keyword> <name> <grain_id> <time>": the name is everything between the
// keyword and the last two fields, so that it may hold spaces ("sendBegin block 1 0 290" names
// "block 1"), as libgrainscope's seed routines print it. False when the line has fewer than 4
// fields.
bool SplitArc(std::string_view s, std::string_view& name, std::string_view& grain, std::string_view& time) {
  size_t end = s.size();
  std::string_view last[2];
  for (int k = 0; k < 2; ++k) {
    while (end > 0 && IsBlank(s[end - 1])) --end;
    size_t begin = end;
    while (begin > 0 && !IsBlank(s[begin - 1])) --begin;
    if (begin == end) return false;
    last[k] = s.substr(begin, end - begin);
    end = begin;
  }
  size_t b = 0;
  while (b < end && IsBlank(s[b])) ++b;
  while (b < end && !IsBlank(s[b])) ++b;  // the keyword
  while (b < end && IsBlank(s[b])) ++b;
  while (end > b && IsBlank(s[end - 1])) --end;
  if (b >= end) return false;
  name = s.substr(b, end - b);
  time = last[0];
  grain = last[1];
  return true;
}

// Undoes the escapes libgrainscope's seed routines write (docs/formats/seedtext.md): "\\" "\t"
// "\n" "\r" "\xHH", and `""` for the empty name. Any other backslash stands for itself, so the
// names of the 1989 traces read as they are.
std::string UnescapeName(std::string_view s) {
  if (s == "\"\"") return {};
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 == s.size()) {
      out += s[i];
      continue;
    }
    const char c = s[i + 1];
    if (c == '\\' || c == 't' || c == 'n' || c == 'r') {
      out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : '\\';
      ++i;
    } else if (c == 'x' && i + 3 < s.size() && hex(s[i + 2]) >= 0 && hex(s[i + 3]) >= 0) {
      out += static_cast<char>(hex(s[i + 2]) * 16 + hex(s[i + 3]));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::optional<RecordKind> Keyword(std::string_view word) {
  for (size_t k = 0; k < kKeywords.size(); ++k)
    if (word == kKeywords[k]) return static_cast<RecordKind>(k);
  return std::nullopt;
}

class SeedTextParser {
 public:
  SeedTextParser(std::string_view content, std::string_view file)
      : content_(content), file_(file), builder_(std::string(kSeedTextFormat)) {
    builder_.diagnostics().set_skipped_input(Diag::kSkippedLines);  // a text format: lines of program output
  }

  Result<Trace> Run() {
    GS_RETURN_IF_ERROR(ParseLines());
    if (records_.empty()) {
      return DataLoss(fmt::format(
          "{}: no trace records found (expected lines such as ' start 1 0 290'; {} other lines "
          "skipped)",
          file_, skipped_));
    }
    GS_RETURN_IF_ERROR(PairGrains());
    GS_RETURN_IF_ERROR(PairArcs());
    GS_RETURN_IF_ERROR(Build());
    return builder_.Finish();
  }

 private:
  template <typename... Args>
  Status ErrorAt(uint32_t line, fmt::format_string<Args...> f, Args&&... args) {
    return DataLoss(fmt::format("{}:{}: {}", file_, line, fmt::format(f, std::forward<Args>(args)...)));
  }

  // An arc's name as the records keep it: a view into the file, or into an unescaped copy.
  std::string_view StoreName(std::string_view name) {
    if (name.find('\\') == std::string_view::npos && name != "\"\"") return name;
    return unescaped_names_.emplace_back(UnescapeName(name));
  }

  // " start 1 0 290": keyword, two ids (or structure name and id), a time in ms.
  Status ParseLines() {
    uint32_t line = 0;
    size_t pos = 0;
    while (pos < content_.size()) {
      size_t nl = content_.find('\n', pos);
      if (nl == std::string_view::npos) nl = content_.size();
      std::string_view text = content_.substr(pos, nl - pos);
      pos = nl + 1;
      ++line;
      if (line % 65536 == 0) progress::Advance(pos);
      GS_RETURN_IF_ERROR(ParseLine(text, line));
    }
    if (skipped_ > 0) {
      builder_.diagnostics().AddCount(Diag::kSkippedLines, skipped_, first_skipped_);
    }
    return OkStatus();
  }

  Status ParseLine(std::string_view text, uint32_t line) {
    std::array<std::string_view, 4> tok;
    const size_t n = Tokenize(text, tok.data(), tok.size());
    std::optional<RecordKind> kind = n > 0 ? Keyword(tok[0]) : std::nullopt;
    if (!kind) {
      if (!Trim(text).empty()) {
        if (skipped_ == 0) {
          std::string_view shown = Trim(text).substr(0, 60);
          first_skipped_ = fmt::format("{}:{}: not a trace record: '{}'", file_, line, shown);
        }
        ++skipped_;
      }
      return OkStatus();
    }
    const bool grain_record = IsGrainRecord(*kind);
    // An arc's name may hold spaces: its last two fields are the grain id and the time.
    if (n < 4 || (n > 4 && grain_record)) {
      return ErrorAt(line, "'{}' record has {} fields, expected 4: {} {} <grain_id> <time_ms>",
                     tok[0], n, tok[0], grain_record ? "<processor_id>" : "<structure_name>");
    }
    Record r{*kind, line};
    if (grain_record) {
      std::optional<int64_t> p = ParseNonNegativeInt(tok[1]);
      if (!p) return ErrorAt(line, "processor id '{}' is not a non-negative integer", tok[1]);
      r.processor = *p;
    } else {
      std::string_view name;
      SplitArc(text, name, tok[2], tok[3]);  // n >= 4: it splits
      r.structure = StoreName(name);
      r.channel = channels_.Id(r.structure);
    }
    std::optional<int64_t> g = ParseNonNegativeInt(tok[2]);
    if (!g) return ErrorAt(line, "grain id '{}' is not a non-negative integer", tok[2]);
    r.grain = *g;
    std::optional<int64_t> t = ParseScaledNs(tok[3], kNsPerMs);
    if (!t) {
      return ErrorAt(line,
                     "time '{}' is not a number of milliseconds from 0 to 9223372036854 with at most "
                     "6 decimals",
                     tok[3]);
    }
    r.time = *t;
    records_.push_back(r);
    return OkStatus();
  }

  Status PairGrains() {
    std::map<std::pair<int64_t, int64_t>, size_t> open;  // (processor, grain) -> runs_ index
    for (const Record& r : records_) {
      if (!IsGrainRecord(r.kind)) continue;
      auto key = std::make_pair(r.processor, r.grain);
      auto it = open.find(key);
      if (r.kind == RecordKind::kStart) {
        if (it != open.end()) {
          return ErrorAt(r.line, "grain {} on processor {} starts again before it stopped (started at line {})",
                         r.grain, r.processor, runs_[it->second].start->line);
        }
        open.emplace(key, runs_.size());
        runs_.push_back(GrainRun{r.processor, r.grain, &r});
        continue;
      }
      if (it == open.end()) {
        return ErrorAt(r.line, "stop of grain {} on processor {} has no start before it", r.grain,
                       r.processor);
      }
      GrainRun& run = runs_[it->second];
      if (r.time < run.start->time) {
        return ErrorAt(r.line, "stop of grain {} at {} is before its start at {} (line {})", r.grain,
                       FormatMs(r.time), FormatMs(run.start->time), run.start->line);
      }
      run.stop = &r;
      open.erase(it);
    }
    for (const GrainRun& run : runs_) {
      if (run.stop == nullptr) {
        return ErrorAt(run.start->line, "grain {} on processor {} starts but never stops", run.grain,
                       run.processor);
      }
    }
    if (runs_.empty()) {
      return DataLoss(fmt::format("{}: no grain records (start/stop) found; arcs alone cannot be placed on processors", file_));
    }
    return OkStatus();
  }

  // Pairs Begin/End records per (structure, grain) into halves, then the k-th send of a structure
  // with its k-th receive (structure names may be reused, in order).
  Status PairArcs() {
    std::map<std::pair<uint32_t, int64_t>, std::deque<size_t>> open_sends, open_recvs;
    FifoMessageMatcher<size_t> arcs;  // indices into sends_ and recvs_, in file order
    for (const Record& r : records_) {
      if (IsGrainRecord(r.kind)) continue;
      const bool is_send = r.kind == RecordKind::kSendBegin || r.kind == RecordKind::kSendEnd;
      const bool is_begin = r.kind == RecordKind::kSendBegin || r.kind == RecordKind::kRecvBegin;
      auto& open = is_send ? open_sends : open_recvs;
      auto& halves = is_send ? sends_ : recvs_;
      auto key = std::make_pair(r.channel, r.grain);
      if (is_begin) {
        open[key].push_back(halves.size());
        if (is_send) {
          arcs.AddSend(r.channel, halves.size());
        } else {
          arcs.AddReceive(r.channel, halves.size());
        }
        halves.push_back(ArcHalf{&r});
        continue;
      }
      auto it = open.find(key);
      if (it == open.end() || it->second.empty()) {
        return ErrorAt(r.line, "{} of arc '{}' for grain {} has no {} before it", kKeywords[static_cast<int>(r.kind)],
                       r.structure, r.grain, is_send ? "sendBegin" : "recvBegin");
      }
      ArcHalf& half = halves[it->second.front()];
      it->second.pop_front();
      if (r.time < half.begin->time) {
        return ErrorAt(r.line, "{} of arc '{}' at {} is before its {} at {} (line {})",
                       kKeywords[static_cast<int>(r.kind)], r.structure, FormatMs(r.time),
                       is_send ? "sendBegin" : "recvBegin", FormatMs(half.begin->time), half.begin->line);
      }
      half.end = &r;
    }
    for (const auto* halves : {&sends_, &recvs_}) {
      for (const ArcHalf& h : *halves) {
        if (h.end == nullptr) {
          const bool is_send = h.begin->kind == RecordKind::kSendBegin;
          return ErrorAt(h.begin->line, "{} of arc '{}' for grain {} has no {}",
                         is_send ? "sendBegin" : "recvBegin", h.begin->structure, h.begin->grain,
                         is_send ? "sendEnd" : "recvEnd");
        }
      }
    }
    arcs.Group();
    arcs.MatchAll([&](uint32_t, const size_t* send, const size_t* recv) {
      arcs_.push_back({send != nullptr ? *send : kNone, recv != nullptr ? *recv : kNone});
    });
    // Messages are numbered in the order of their sendBegin lines (a receive without a send: its
    // recvBegin line).
    auto first_line = [&](const auto& arc) {
      return arc.send != kNone ? sends_[arc.send].begin->line : recvs_[arc.recv].begin->line;
    };
    std::sort(arcs_.begin(), arcs_.end(), [&](const auto& a, const auto& b) { return first_line(a) < first_line(b); });
    return OkStatus();
  }

  // The processor a grain ran on, or an error at `line` when that is not one processor.
  Result<int64_t> ProcessorOfGrain(int64_t grain, uint32_t line, std::string_view structure) {
    auto [first, last] = grain_processors_.equal_range(grain);
    if (first == last) {
      return ErrorAt(line, "arc '{}' names grain {}, which never starts on any processor", structure, grain);
    }
    if (std::next(first) != last) {
      return ErrorAt(line, "arc '{}' names grain {}, which runs on processors {} and {}; cannot tell which one communicates",
                     structure, grain, first->second, std::next(first)->second);
    }
    return first->second;
  }

  struct PendingEvent {
    TimeNs time;
    uint32_t line;
    uint8_t sub;  // order of the events one record expands into
    EventKind kind;
    uint32_t arg;
  };

  // Each arc becomes a message, its send and receive halves regions on their grains' processors
  // (a receive before its send, a send never received and a receive never sent are noted, as in
  // every format: the message keeps the side that was recorded).
  Status AddArcs(const std::map<int64_t, LocationId>& locations, const std::map<int64_t, RegionId>& grain_regions,
                 RegionId send_region, RegionId recv_region, std::vector<std::vector<PendingEvent>>& pending) {
    for (const Arc& arc : arcs_) {
      const ArcHalf* send = arc.send == kNone ? nullptr : &sends_[arc.send];
      const ArcHalf* recv = arc.recv == kNone ? nullptr : &recvs_[arc.recv];
      MessageInfo info;
      info.name = (send != nullptr ? send : recv)->begin->structure;
      if (send != nullptr) {
        GS_ASSIGN_OR_RETURN(int64_t sender_proc,
                            ProcessorOfGrain(send->begin->grain, send->begin->line, send->begin->structure));
        info.sender = locations.at(sender_proc);
        info.send_grain = grain_regions.at(send->begin->grain);
      }
      if (recv != nullptr) {
        GS_ASSIGN_OR_RETURN(int64_t receiver_proc,
                            ProcessorOfGrain(recv->begin->grain, recv->begin->line, recv->begin->structure));
        info.receiver = locations.at(receiver_proc);
        info.recv_grain = grain_regions.at(recv->begin->grain);
      }
      NoteUnmatched(send, recv, info.name);
      const MessageId m = builder_.AddMessage(info);
      if (send != nullptr) {
        auto& out = pending[info.sender.value];
        out.push_back({send->begin->time, send->begin->line, 0, EventKind::kEnter, send_region.value});
        out.push_back({send->begin->time, send->begin->line, 1, EventKind::kSend, m.value});
        out.push_back({send->end->time, send->end->line, 0, EventKind::kLeave, send_region.value});
      }
      if (recv != nullptr) {
        auto& in = pending[info.receiver.value];
        in.push_back({recv->begin->time, recv->begin->line, 0, EventKind::kEnter, recv_region.value});
        in.push_back({recv->end->time, recv->end->line, 0, EventKind::kRecv, m.value});
        in.push_back({recv->end->time, recv->end->line, 1, EventKind::kLeave, recv_region.value});
      }
    }
    return OkStatus();
  }

  // The diagnostics of an arc: a receive before its send, a send or a receive without the other.
  void NoteUnmatched(const ArcHalf* send, const ArcHalf* recv, std::string_view name) {
    if (send != nullptr && recv != nullptr && recv->end->time < send->begin->time) {
      builder_.diagnostics().Add(Diag::kReceiveBeforeSend,
                                 fmt::format("{}:{}: arc '{}' is received at {}, before it is sent at {} (line {})", file_,
                                             recv->end->line, name, FormatMs(recv->end->time),
                                             FormatMs(send->begin->time), send->begin->line));
    } else if (recv == nullptr) {
      unmatched_.NoReceive([&] {
        return fmt::format("{}:{}: arc '{}' is sent by grain {} but never received", file_, send->begin->line, name,
                           send->begin->grain);
      });
    } else if (send == nullptr) {
      unmatched_.NoSend([&] {
        return fmt::format("{}:{}: arc '{}' is received by grain {} more often than any grain sends it", file_,
                           recv->end->line, name, recv->begin->grain);
      });
    }
  }

  Status Build() {
    std::map<int64_t, LocationId> locations;
    std::map<int64_t, RegionId> grain_regions;
    for (const GrainRun& run : runs_) {
      locations.emplace(run.processor, LocationId());
      grain_regions.emplace(run.grain, RegionId());
      grain_processors_.emplace(run.grain, run.processor);
    }
    // Unique (grain, processor) pairs only.
    for (auto it = grain_processors_.begin(); it != grain_processors_.end();) {
      auto next = std::next(it);
      while (next != grain_processors_.end() && next->first == it->first && next->second == it->second)
        next = grain_processors_.erase(next);
      it = next;
    }
    for (auto& [id, loc] : locations)
      loc = builder_.AddLocation(fmt::format("processor {}", id), LocationKind::kProcessor, id);
    for (auto& [id, region] : grain_regions)
      region = builder_.AddRegion(fmt::format("grain {}", id), RegionRole::kGrain, id);
    const RegionId send_region = builder_.AddRegion("send", RegionRole::kPointToPoint, -1);
    const RegionId recv_region = builder_.AddRegion("receive", RegionRole::kPointToPoint, -1);
    builder_.SetOrigin(0);
    builder_.AddMetadata(metadata::kTimeUnit, "ms");

    std::vector<std::vector<PendingEvent>> pending(locations.size());
    for (const GrainRun& run : runs_) {
      const uint32_t loc = locations.at(run.processor).value;
      const uint32_t region = grain_regions.at(run.grain).value;
      pending[loc].push_back({run.start->time, run.start->line, 0, EventKind::kEnter, region});
      pending[loc].push_back({run.stop->time, run.stop->line, 0, EventKind::kLeave, region});
    }
    GS_RETURN_IF_ERROR(AddArcs(locations, grain_regions, send_region, recv_region, pending));
    unmatched_.Report(builder_.diagnostics());

    for (auto& [processor, loc] : locations) {
      std::vector<PendingEvent>& events = pending[loc.value];
      std::sort(events.begin(), events.end(), [](const PendingEvent& a, const PendingEvent& b) {
        if (a.time != b.time) return a.time < b.time;
        if (a.line != b.line) return a.line < b.line;
        return a.sub < b.sub;
      });
      GS_RETURN_IF_ERROR(CheckNesting(processor, events));
      builder_.Reserve(loc, events.size());
      for (const PendingEvent& e : events) {
        switch (e.kind) {
          case EventKind::kEnter: builder_.Enter(loc, e.time, RegionId(e.arg)); break;
          case EventKind::kLeave: builder_.Leave(loc, e.time, RegionId(e.arg)); break;
          case EventKind::kSend: builder_.Send(loc, e.time, MessageId(e.arg)); break;
          case EventKind::kRecv: builder_.Recv(loc, e.time, MessageId(e.arg)); break;
          default: return Internal("unexpected event kind in seed text reader");
        }
      }
    }
    return OkStatus();
  }

  // One processor runs one thing at a time: grains and arc halves may nest but not overlap.
  Status CheckNesting(int64_t processor, const std::vector<PendingEvent>& events) {
    std::vector<const PendingEvent*> open;
    for (const PendingEvent& e : events) {
      if (e.kind == EventKind::kEnter) open.push_back(&e);
      if (e.kind != EventKind::kLeave) continue;
      if (open.empty() || open.back()->arg != e.arg) {
        if (open.empty()) return Internal("seed text reader: leave without enter");
        const PendingEvent& inner = *open.back();
        return ErrorAt(e.line,
                       "this record ends at {} while the record of line {} (started at {}) is still "
                       "open on processor {}: a processor's grains and arcs may nest but not overlap",
                       FormatMs(e.time), inner.line, FormatMs(inner.time), processor);
      }
      open.pop_back();
    }
    return OkStatus();
  }

  static constexpr size_t kNone = static_cast<size_t>(-1);
  struct Arc {
    size_t send;  // kNone when never sent
    size_t recv;  // kNone when never received
  };

  std::string_view content_;
  std::string_view file_;
  TraceBuilder builder_;
  std::deque<Record> records_;  // a deque: GrainRun and ArcHalf point into it
  std::deque<std::string> unescaped_names_;  // names that were escaped; records view them
  uint64_t skipped_ = 0;
  std::string first_skipped_;
  std::vector<GrainRun> runs_;
  std::vector<ArcHalf> sends_, recvs_;
  std::vector<Arc> arcs_;
  UnmatchedEnds unmatched_;
  ChannelIds<std::string_view> channels_;  // structure name -> channel
  std::multimap<int64_t, int64_t> grain_processors_;  // grain -> processors it ran on
};

}  // namespace

Result<Trace> ReadSeedText(std::string_view content, std::string_view file_name, const ReadOptions&) {
  return SeedTextParser(content, file_name).Run();
}

bool LooksLikeSeedText(std::string_view head) {
  size_t pos = 0;
  while (pos < head.size()) {
    size_t nl = head.find('\n', pos);
    if (nl == std::string_view::npos) nl = head.size();
    std::array<std::string_view, 1> tok;
    if (Tokenize(head.substr(pos, nl - pos), tok.data(), 1) > 0 && Keyword(tok[0])) return true;
    pos = nl + 1;
  }
  return false;
}

namespace {
Sniff SniffSeedText(const TraceProbe& probe) { return LooksLikeSeedText(probe.head) ? Sniff::kPlausible : Sniff::kNo; }
}  // namespace

constinit const Importer kSeedTextImporter{kSeedTextFormat, SniffSeedText, nullptr, ReadSeedText, {}, "seed text"};

}  // namespace grainscope
