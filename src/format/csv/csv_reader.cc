#include "format/csv/csv_reader.h"

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/numbers.h"
#include "format/format_names.h"
#include "model/message_matcher.h"
#include "model/rendezvous.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

constexpr size_t kAbsent = SIZE_MAX;

// Where each column is, and the unit of the times.
struct Columns {
  size_t time = kAbsent, type = kAbsent, name = kAbsent, process = kAbsent, thread = kAbsent, attributes = kAbsent;
  int64_t unit_ns = 1;
};

// A line's fields into `fields` (whose strings keep their capacity from line to line):
// comma-separated, blanks around each dropped; "..." quotes commas, "" a quote.
void SplitFields(std::string_view line, std::vector<std::string>& fields) {
  size_t n = 1;
  auto field = [&]() -> std::string& { return fields[n - 1]; };
  fields.resize(std::max<size_t>(fields.size(), 1));
  fields[0].clear();
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (c == '"' && quoted && i + 1 < line.size() && line[i + 1] == '"') {
      field() += c, ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      if (++n > fields.size()) fields.emplace_back();
      field().clear();
    } else {
      field() += c;
    }
  }
  fields.resize(n);
  for (std::string& f : fields) {
    f.erase(0, std::min(f.size(), f.find_first_not_of(" \t\r")));
    f.erase(f.find_last_not_of(" \t\r") + 1);
  }
}

Result<Columns> ReadHeader(std::string_view line, std::string_view file) {
  static constexpr std::pair<std::string_view, int64_t> kUnits[] = {
      {"(s)", 1'000'000'000}, {"(ms)", 1'000'000}, {"(us)", 1'000}, {"(ns)", 1}};
  Columns c;
  std::vector<std::string> names;
  SplitFields(line, names);
  for (size_t i = 0; i < names.size(); ++i) {
    const std::string_view n = names[i];
    for (const auto& [unit, ns] : kUnits)
      if (n == fmt::format("Timestamp {}", unit)) c.time = i, c.unit_ns = ns;
    if (n == "Event Type") c.type = i;
    if (n == "Name") c.name = i;
    if (n == "Process") c.process = i;
    if (n == "Thread") c.thread = i;
    if (n == "Attributes") c.attributes = i;
  }
  if (c.time == kAbsent || c.type == kAbsent || c.name == kAbsent || c.process == kAbsent) {
    return DataLoss(fmt::format("{}:1: expected a CSV header naming the columns \"Timestamp (s|ms|us|ns)\", "
                                "\"Event Type\", \"Name\" and \"Process\", got {}", file, EchoToken(line)));
  }
  return c;
}

// A time in `unit_ns` units, truncated to the nanosecond (Pipit writes floats: "30083.0869374").
std::optional<TimeNs> TimeOf(std::string_view text, int64_t unit_ns) {
  if (text.find_first_of("eE") != std::string_view::npos) {
    const std::optional<double> d = ParseFiniteDouble(text);
    if (!d || *d < 0 || *d * static_cast<double>(unit_ns) >= 9.2e18) return std::nullopt;
    return static_cast<TimeNs>(*d * static_cast<double>(unit_ns));
  }
  size_t whole_digits = 0;  // the fraction digits that are whole nanoseconds
  for (int64_t u = unit_ns; u >= 10; u /= 10) ++whole_digits;
  const size_t dot = text.find('.');
  if (dot != std::string_view::npos) {
    if (text.find_first_not_of("0123456789", dot + 1) != std::string_view::npos) return std::nullopt;
    text = text.substr(0, whole_digits == 0 ? dot : std::min(text.size(), dot + 1 + whole_digits));
    if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  }
  return ParseScaledNs(text, unit_ns);
}

// A number in Pipit's attributes column, a Python dict ({'receiver': 1, 'msg_tag': 10}), as text.
std::string_view Attribute(std::string_view attributes, std::string_view key) {
  const std::string quoted = fmt::format("'{}':", key);
  const size_t at = attributes.find(quoted);
  if (at == std::string_view::npos) return {};
  const std::string_view rest = attributes.substr(at + quoted.size());
  const std::string_view value = rest.substr(0, rest.find_first_of(",}"));
  return value.substr(std::min(value.size(), value.find_first_not_of(' ')));
}

// A row, kept with its location's until they are sorted by time (file order at equal times).
struct Row {
  TimeNs time;
  EventKind kind;  // kEnter, kLeave, kMarker, kSend, kRecv
  uint32_t arg;    // RegionId, StringId, or (kSend, kRecv) the message once matched
};

// One side of a message, for the matcher: its row and what the attributes said.
struct End {
  std::vector<Row>* rows;
  uint32_t row, line;
  int32_t tag;
  uint64_t bytes;
};

class PipitCsvReader {
 public:
  PipitCsvReader(std::string_view file, const ReadOptions& options) : file_(file), b_(std::string(kCsvFormat)) {
    b_.SetRepairNesting(!options.strict);
  }

  Result<Trace> Read(std::string_view content) {
    size_t line_end = content.find('\n');
    GS_ASSIGN_OR_RETURN(columns_, ReadHeader(content.substr(0, line_end), file_));
    for (uint32_t line = 2; line_end != std::string_view::npos; ++line) {
      const size_t begin = line_end + 1;
      line_end = content.find('\n', begin);
      const std::string_view text = content.substr(begin, line_end == std::string_view::npos ? line_end : line_end - begin);
      if (text.find_first_not_of(" \t\r") == std::string_view::npos) continue;
      SplitFields(text, fields_);
      if (const std::string why = ReadRow(fields_, line); !why.empty())
        b_.diagnostics().Add(Diag::kInvalidRecords, fmt::format("{}:{}: {}", file_, line, why));
    }
    MatchMessages();
    AppendLocations();
    // Pipit's MpiSend/MpiRecv are MPI's messages; the file does not say the library's eager limit.
    if (channels_.size() > 0) b_.SetEagerLimit(kAssumedEagerLimitBytes, "assumed: the trace does not say");
    return b_.Finish();
  }

 private:
  // Reads one row into its location's rows; returns why it cannot be read, or "".
  std::string ReadRow(const std::vector<std::string>& f, uint32_t line) {
    auto field = [&](size_t column) { return column < f.size() ? std::string_view(f[column]) : std::string_view(); };
    const std::optional<TimeNs> time = TimeOf(field(columns_.time), columns_.unit_ns);
    const std::optional<int64_t> process = ParseNonNegativeInt(field(columns_.process));
    const std::optional<int64_t> thread =
        columns_.thread == kAbsent ? std::optional<int64_t>(0) : ParseNonNegativeInt(field(columns_.thread));
    if (!time) return fmt::format("expected a time, got {}", EchoToken(field(columns_.time)));
    if (!process || !thread) return "expected a process and thread number";
    std::vector<Row>& rows = rows_[{*process, *thread}];
    const std::string_view type = field(columns_.type), name = field(columns_.name);
    if (type == "Enter" || type == "Leave") {
      auto it = regions_.find(name);
      if (it == regions_.end()) {
        const RegionId r = b_.AddRegion(name, RegionRole::kFunction, static_cast<int64_t>(regions_.size()));
        it = regions_.emplace(std::string(name), r).first;
      }
      rows.push_back({*time, type == "Enter" ? EventKind::kEnter : EventKind::kLeave, it->second.value});
    } else if (type == "Instant" && (name == "MpiSend" || name == "MpiRecv")) {
      const bool send = name == "MpiSend";
      const std::string_view attributes = field(columns_.attributes);
      const std::optional<int64_t> peer = ParseNonNegativeInt(Attribute(attributes, send ? "receiver" : "sender"));
      const std::optional<int64_t> tag = ParseNonNegativeInt(Attribute(attributes, "msg_tag"));
      if (!peer || !tag || *tag > INT32_MAX) return fmt::format("{} without its peer and tag attributes", name);
      const std::optional<int64_t> bytes = ParseNonNegativeInt(Attribute(attributes, "msg_length"));
      const End end{&rows, static_cast<uint32_t>(rows.size()), line, static_cast<int32_t>(*tag),
                    static_cast<uint64_t>(bytes.value_or(0))};
      const std::string channel = fmt::format("{} {} {} {}", Attribute(attributes, "communicator"),
                                              send ? *process : *peer, send ? *peer : *process, *tag);
      rows.push_back({*time, send ? EventKind::kSend : EventKind::kRecv, 0});
      send ? messages_.AddSend(channels_.Id(channel), end) : messages_.AddReceive(channels_.Id(channel), end);
    } else if (type == "Instant") {
      rows.push_back({*time, EventKind::kMarker, b_.Intern(name).value});
    } else {
      return fmt::format("'Event Type' must be Enter, Leave or Instant, got {}", EchoToken(type));
    }
    return "";
  }

  // Pairs sends and receives per channel in row order; a side nobody recorded stays missing.
  void MatchMessages() {
    messages_.Group();
    UnmatchedEnds unmatched;
    messages_.MatchAll([&](uint32_t, const End* send, const End* recv) {
      const MessageId m = b_.AddMessage(MessageInfo{.tag = (send ? send : recv)->tag, .bytes = (send ? send : recv)->bytes});
      if (send) (*send->rows)[send->row].arg = m.value;
      if (recv) (*recv->rows)[recv->row].arg = m.value;
      if (!send) unmatched.NoSend([&] { return fmt::format("{}:{}: MpiRecv is never sent", file_, recv->line); });
      if (!recv) unmatched.NoReceive([&] { return fmt::format("{}:{}: MpiSend is never received", file_, send->line); });
    });
    unmatched.Report(b_.diagnostics());
  }

  // One location per (process, thread) in that order, its rows appended in time order.
  void AppendLocations() {
    std::map<int64_t, LocationId> process_of;
    for (auto& [where, rows] : rows_) {
      if (rows.empty()) continue;  // none of its rows could be read
      const auto [process, thread] = where;
      const LocationId loc = columns_.thread == kAbsent
                                 ? b_.AddLocation(fmt::format("process {}", process), LocationKind::kProcess, process)
                                 : b_.AddLocation(fmt::format("process {} thread {}", process, thread), LocationKind::kThread, thread);
      b_.SetLocationGroup(loc, process_of.try_emplace(process, loc).first->second.value);
      std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& x) { return a.time < x.time; });
      for (const Row& r : rows) {
        switch (r.kind) {
          case EventKind::kEnter: b_.Enter(loc, r.time, RegionId(r.arg)); break;
          case EventKind::kLeave: b_.Leave(loc, r.time, RegionId(r.arg)); break;
          case EventKind::kSend: b_.Send(loc, r.time, MessageId(r.arg)); break;
          case EventKind::kRecv: b_.Recv(loc, r.time, MessageId(r.arg)); break;
          default: b_.MarkerOrSync(loc, r.time, StringId(r.arg)); break;
        }
      }
    }
  }

  std::string_view file_;
  TraceBuilder b_;
  Columns columns_;
  std::vector<std::string> fields_;  // the row being read
  std::map<std::pair<int64_t, int64_t>, std::vector<Row>> rows_;  // per (process, thread)
  std::map<std::string, RegionId, std::less<>> regions_;
  ChannelIds<std::string> channels_;
  FifoMessageMatcher<End> messages_;
};

Sniff SniffPipitCsv(const TraceProbe& probe) { return LooksLikePipitCsv(probe.head) ? Sniff::kSure : Sniff::kNo; }

}  // namespace

Result<Trace> ReadPipitCsv(std::string_view content, std::string_view file_name, const ReadOptions& options) {
  return PipitCsvReader(file_name, options).Read(content);
}

bool LooksLikePipitCsv(std::string_view head) {
  const std::string_view line = head.substr(0, head.find('\n'));
  return line.starts_with("Timestamp (") && line.find("Event Type") != std::string_view::npos;
}

constinit const Importer kCsvImporter{kCsvFormat, SniffPipitCsv, nullptr, ReadPipitCsv, {}, "Pipit CSV"};

}  // namespace grainscope
