#include "format/csv/csv_writer.h"

#include <algorithm>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "format/format_names.h"
#include "model/sync_table.h"

namespace grainscope {
namespace {

// A field as CSV holds it: quoted when it holds a comma, a quote or blanks at its ends (the reader
// drops those), a line break as a blank (a field cannot hold one).
void AppendField(std::string& out, std::string_view field) {
  const bool quote = field.find_first_of(",\"\n\r") != std::string_view::npos ||
                     (!field.empty() && (field.front() == ' ' || field.back() == ' ' || field.front() == '\t' || field.back() == '\t'));
  if (!quote) {
    out += field;
    return;
  }
  out += '"';
  for (const char c : field) {
    if (c == '"') out += "\"\"";
    else out += c == '\n' || c == '\r' ? ' ' : c;
  }
  out += '"';
}

class CsvWriter {
 public:
  CsvWriter(const Trace& t, TextSink& out) : t_(t), out_(out) {}

  void Run() {
    Number();
    // Times from the trace's origin (OTF2's clock offset, ...), which the layout cannot hold.
    offset_ = std::min(t_.origin_ns(), t_.start_ns());
    out_.text() += "Timestamp (ns),Event Type,Name,Thread,Process,Attributes\n";
    for (uint32_t l = 0; l < t_.locations().size() && !out_.failed(); ++l) WriteLocation(LocationId(l));
  }

 private:
  // Processes numbered in order of appearance, threads within each.
  void Number() {
    std::vector<int64_t> process_of_group;
    std::vector<int64_t> threads;
    for (const Location& loc : t_.locations()) {
      if (loc.group >= process_of_group.size()) process_of_group.resize(loc.group + 1, -1);
      if (process_of_group[loc.group] < 0) process_of_group[loc.group] = static_cast<int64_t>(threads.size()), threads.push_back(0);
      const int64_t p = process_of_group[loc.group];
      where_.push_back({p, threads[static_cast<size_t>(p)]++});
    }
  }

  void WriteLocation(LocationId loc) {
    const EventColumns e = t_.events(loc);
    const auto [process, thread] = where_[loc.value];
    for (size_t i = 0; i < e.size(); ++i) {
      std::string& out = out_.text();
      const uint32_t a = e.arg[i];
      switch (e.kind[i]) {
        case EventKind::kEnter:
        case EventKind::kLeave:
          Row(e.time[i], e.kind[i] == EventKind::kEnter ? "Enter" : "Leave", t_.str(t_.region(RegionId(a)).name), thread, process);
          out += '\n';
          break;
        case EventKind::kSend:
        case EventKind::kRecv: WriteMessageEnd(e.time[i], e.kind[i] == EventKind::kSend, MessageId(a), thread, process); break;
        case EventKind::kMarker: Row(e.time[i], "Instant", t_.str(StringId(a)), thread, process), out += '\n'; break;
        case EventKind::kSync: {
          const SyncTable& s = t_.syncs();
          Row(e.time[i], "Instant", SyncLabel(s.kind[a], s.object[a], s.arg[a]), thread, process);
          out += '\n';
          break;
        }
        default: break;  // request completions and postings, collective membership: no row
      }
      out_.Step();
    }
  }

  void Row(TimeNs t, std::string_view type, std::string_view name, int64_t thread, int64_t process) {
    std::string& out = out_.text();
    fmt::format_to(std::back_inserter(out), "{},{},", t - offset_, type);
    AppendField(out, name);
    fmt::format_to(std::back_inserter(out), ",{},{},", thread, process);
  }

  void WriteMessageEnd(TimeNs t, bool send, MessageId m, int64_t thread, int64_t process) {
    const MessageTable& msgs = t_.messages();
    const LocationId peer = send ? msgs.receiver[m.value] : msgs.sender[m.value];
    const bool known = send ? msgs.recv_event[m.value] != kNoEvent : msgs.send_event[m.value] != kNoEvent;
    Row(t, "Instant", send ? "MpiSend" : "MpiRecv", thread, process);
    const CommunicatorId c = msgs.communicator[m.value];
    // A peer nobody recorded has no process: the row keeps its place, the reader counts it unmatched.
    fmt::format_to(std::back_inserter(out_.text()), "\"{{'{}': {}, 'communicator': 'Comm {}', 'msg_tag': {}, 'msg_length': {}}}\"\n",
                   send ? "receiver" : "sender", known && peer.valid() ? where_[peer.value].first : -1,
                   c.valid() ? static_cast<int64_t>(c.value) : 0, msgs.tag[m.value], msgs.bytes[m.value]);
  }

  const Trace& t_;
  TextSink& out_;
  std::vector<std::pair<int64_t, int64_t>> where_;  // per location: (process, thread)
  TimeNs offset_ = 0;
};

}  // namespace

void WritePipitCsv(const Trace& trace, TextSink& out) { CsvWriter(trace, out).Run(); }

Status WritePipitCsv(const Trace& trace, const std::string& path, const OutputOptions& options) {
  auto write = [&](TextSink& out) {
    WritePipitCsv(trace, out);
    return OkStatus();
  };
  return WriteOutputStream(path, write, options, kCsvExporter.what, AnyRegularFile);
}

namespace {
constexpr std::string_view kExtensions[] = {".csv"};
}  // namespace

constinit const Exporter kCsvExporter{kCsvFormat, kExtensions, WritePipitCsv, "a regular file",
                                      "Pipit's CSV, one event per row (Pipit, pandas)"};

}  // namespace grainscope
