#include "format/chrome/chrome_writer.h"

#include <vector>

#include <fmt/format.h>

#include "format/chrome/chrome_common.h"

namespace grainscope {
namespace {

using chrome::kDepthArg;

// The length of the well-formed UTF-8 sequence (RFC 3629) starting at s[i], a lead byte >= 0x80;
// 0 when it is not one.
size_t Utf8Length(std::string_view s, size_t i) {
  const auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0; };
  const unsigned char c = at(0);
  const auto cont = [&](size_t k, unsigned char lo = 0x80, unsigned char hi = 0xBF) { return at(k) >= lo && at(k) <= hi; };
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const bool second = c == 0xE0 ? cont(1, 0xA0) : c == 0xED ? cont(1, 0x80, 0x9F) : cont(1);
    return second && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const bool second = c == 0xF0 ? cont(1, 0x90) : c == 0xF4 ? cont(1, 0x80, 0x8F) : cont(1);
    return second && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

// `s` as a JSON string. Bytes that are not UTF-8 (a trace's strings need not be) become U+FFFD,
// so that every reader, ours included, takes the file back.
void AppendEscaped(std::string& out, std::string_view s) {
  out += '"';
  for (size_t i = 0; i < s.size(); ++i) {
    const char ch = s[i];
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x80) {
      const size_t n = Utf8Length(s, i);
      if (n == 0) {
        out += "\xEF\xBF\xBD";  // U+FFFD
      } else {
        out.append(s, i, n);
        i += n - 1;
      }
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (c < 0x20) {
          out += fmt::format("\\u{:04x}", c);
        } else {
          out += ch;
        }
    }
  }
  out += '"';
}

// 290000000 ns -> "290000.000" (microseconds, the unit of "ts" and "dur").
void AppendMicros(std::string& out, TimeNs ns) {
  const uint64_t magnitude = ns < 0 ? -static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
  fmt::format_to(std::back_inserter(out), "{}{}.{:03d}", ns < 0 ? "-" : "", magnitude / 1000,
                 magnitude % 1000);
}

class ChromeJsonWriter {
 public:
  ChromeJsonWriter(const Trace& t, TextSink& sink) : t_(t), sink_(sink), out_(sink.text()) {}

  void Run() {
    out_ += "{\"displayTimeUnit\":\"ns\",\"otherData\":{";
    bool first = true;
    for (const MetadataEntry& e : t_.metadata()) {
      if (!first) out_ += ',';
      first = false;
      AppendEscaped(out_, t_.str(e.key));
      out_ += ':';
      AppendEscaped(out_, t_.str(e.value));
    }
    out_ += "},\n\"grainscope\":{\"origin_ns\":" + fmt::format("{}", t_.origin_ns()) + ",\"communicators\":[";
    for (size_t c = 0; c < t_.communicators().size(); ++c) {
      const Communicator& comm = t_.communicators()[c];
      out_ += c > 0 ? ",{\"name\":" : "{\"name\":";
      AppendEscaped(out_, t_.str(comm.name));
      out_ += ",\"members\":[";
      for (size_t k = 0; k < comm.members.size(); ++k) {
        if (k > 0) out_ += ',';
        AppendTrackRef(comm.members[k]);
      }
      out_ += "]}";
    }
    out_ += "]},\n\"traceEvents\":[\n";
    WriteTrackNames();
    for (uint32_t l = 0; l < t_.locations().size(); ++l) WriteLocation(LocationId(l));
    // The last item's ",\n" is still in the sink: items step it (write it out) only as they begin.
    if (out_.ends_with(",\n")) out_.resize(out_.size() - 2), out_ += '\n';
    out_ += "]}\n";
  }

 private:
  uint32_t Pid(LocationId l) const {
    const uint32_t g = t_.location(l).group;
    return (g < t_.locations().size() ? g : l.value) + 1;
  }
  uint32_t Tid(LocationId l) const { return l.value + 1; }
  void AppendTrackRef(LocationId l) { fmt::format_to(std::back_inserter(out_), "[{},{}]", Pid(l), Tid(l)); }

  // {"ph":"X","name":"grain 1","cat":"grain","ts":290000.000, ... up to the event's own fields.
  void Begin(std::string_view ph, std::string_view name, std::string_view cat, LocationId l, TimeNs t) {
    sink_.Step();
    out_ += "{\"ph\":\"";
    out_ += ph;
    out_ += "\",\"name\":";
    AppendEscaped(out_, name);
    out_ += ",\"cat\":";
    AppendEscaped(out_, cat);
    out_ += ",\"ts\":";
    AppendMicros(out_, t - t_.origin_ns());
    fmt::format_to(std::back_inserter(out_), ",\"pid\":{},\"tid\":{}", Pid(l), Tid(l));
  }
  void End() { out_ += "},\n"; }

  void WriteTrackNames() {
    for (uint32_t l = 0; l < t_.locations().size(); ++l) {
      sink_.Step();
      const LocationId id(l);
      const Location& loc = t_.location(id);
      if (Pid(id) == Tid(id)) {
        fmt::format_to(std::back_inserter(out_), "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":{},\"args\":{{\"name\":", Pid(id));
        AppendEscaped(out_, t_.str(loc.name));
        out_ += "}},\n";
      }
      fmt::format_to(std::back_inserter(out_), "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":{},\"tid\":{},\"args\":{{\"name\":",
                     Pid(id), Tid(id));
      AppendEscaped(out_, t_.str(loc.name));
      fmt::format_to(std::back_inserter(out_), ",\"{}\":\"{}\",\"{}\":{}}}}},\n", chrome::kKindArg,
                     LocationKindName(loc.kind), chrome::kExternalIdArg, loc.external_id);
    }
  }

  // Each event becomes an item at its position; Leave events are implied by "dur". The reader
  // rebuilds the nesting from times (ReconstructNesting in chrome_reader.cc); where times alone
  // are ambiguous (zero-length regions at a region's end, points at its end), the item carries
  // its nesting depth. open_ends mirrors the reader's stack of region ends.
  void WriteLocation(LocationId l) {
    const EventColumns& e = t_.events(l);
    std::vector<TimeNs> end_of(e.size(), 0);
    std::vector<uint32_t> stack;
    for (uint32_t i = 0; i < e.size(); ++i) {
      if (e.kind[i] == EventKind::kEnter) stack.push_back(i);
      if (e.kind[i] == EventKind::kLeave && !stack.empty()) {
        end_of[stack.back()] = e.time[i];
        stack.pop_back();
      }
    }
    std::vector<TimeNs> reader_stack;  // ends of the regions the reader still has open
    uint32_t depth = 0;                // regions actually open
    for (uint32_t i = 0; i < e.size(); ++i) {
      const TimeNs t = e.time[i];
      if (e.kind[i] == EventKind::kLeave) {
        --depth;
        continue;
      }
      const bool is_region = e.kind[i] == EventKind::kEnter;
      size_t kept = reader_stack.size();
      while (kept > 0 && (reader_stack[kept - 1] < t || (is_region && reader_stack[kept - 1] == t))) --kept;
      const bool hint = kept != depth;
      reader_stack.resize(depth);
      WriteItem(l, i, end_of[i], hint ? static_cast<int64_t>(depth) : -1);
      if (is_region) {
        reader_stack.push_back(end_of[i]);
        ++depth;
      }
    }
  }

  void AppendDepth(int64_t depth, bool first_arg) {
    if (depth < 0) return;
    fmt::format_to(std::back_inserter(out_), "{}\"{}\":{}", first_arg ? "" : ",", kDepthArg, depth);
  }

  // A message's send ("s") or receive ("f") flow event, with what ReadChromeJson needs to rebuild
  // the message.
  void WriteMessage(LocationId l, TimeNs t, uint32_t a, bool send, int64_t depth) {
    const MessageTable& m = t_.messages();
    const std::string_view name = t_.str(m.name[a]);
    Begin(send ? "s" : "f", name.empty() ? "message" : name, chrome::kMessageCategory, l, t);
    fmt::format_to(std::back_inserter(out_), "{},\"id\":{},\"args\":{{\"bytes\":{},\"tag\":{}",
                   send ? "" : ",\"bp\":\"e\"", a, m.bytes[a], m.tag[a]);
    if (!name.empty()) out_ += ",\"name\":", AppendEscaped(out_, name);
    if (m.communicator[a].valid()) fmt::format_to(std::back_inserter(out_), ",\"communicator\":{}", m.communicator[a].value);
    const RegionId grain = send ? m.send_grain[a] : m.recv_grain[a];
    if (grain.valid()) out_ += ",\"grain\":", AppendEscaped(out_, t_.str(t_.region(grain).name));
    if (!m.matched(MessageId(a))) {
      // The other side's track, or null when nobody recorded it (ReadChromeJson keeps both).
      const LocationId peer = send ? m.receiver[a] : m.sender[a];
      out_ += ",\"peer\":";
      if (peer.valid()) {
        AppendTrackRef(peer);
      } else {
        out_ += "null";
      }
    }
    AppendDepth(depth, false);
    out_ += '}';
    End();
  }

  // A collective's begin or end as an instant event; the begin carries the instance's shape and
  // this member's byte counts.
  void WriteCollective(LocationId l, TimeNs t, uint32_t a, bool begin, int64_t depth) {
    const CollectiveTable& c = t_.collectives();
    Begin("i", begin ? "collective_begin" : "collective_end", chrome::kCollectiveCategory, l, t);
    fmt::format_to(std::back_inserter(out_), ",\"s\":\"t\",\"args\":{{\"collective\":{},\"op\":\"{}\"", a,
                   CollectiveOpName(c.op[a]));
    if (begin) {
      if (c.communicator[a].valid()) fmt::format_to(std::back_inserter(out_), ",\"communicator\":{}", c.communicator[a].value);
      if (c.root[a].valid()) out_ += ",\"root\":", AppendTrackRef(c.root[a]);
      for (uint32_t k = c.first_member[a]; k < c.first_member[a + 1]; ++k) {
        if (c.member_location[k] != l) continue;
        fmt::format_to(std::back_inserter(out_), ",\"bytes_sent\":{},\"bytes_received\":{}",
                       c.member_bytes_sent[k], c.member_bytes_received[k]);
      }
    }
    AppendDepth(depth, false);
    out_ += '}';
    End();
  }

  void WriteItem(LocationId l, uint32_t i, TimeNs end, int64_t depth) {
    const EventColumns& e = t_.events(l);
    const TimeNs t = e.time[i];
    const uint32_t a = e.arg[i];
    switch (e.kind[i]) {
      case EventKind::kEnter: {
        const Region& r = t_.region(RegionId(a));
        Begin("X", t_.str(r.name), RegionRoleName(r.role), l, t);
        out_ += ",\"dur\":";
        AppendMicros(out_, end - t);
        if (depth >= 0) out_ += ",\"args\":{", AppendDepth(depth, true), out_ += '}';
        return End();
      }
      case EventKind::kLeave: return;
      case EventKind::kSend:
      case EventKind::kRecv: return WriteMessage(l, t, a, e.kind[i] == EventKind::kSend, depth);
      case EventKind::kSendComplete:
      case EventKind::kRecvPost:
        Begin("i", e.kind[i] == EventKind::kSendComplete ? "send_complete" : "recv_post",
              chrome::kRequestCategory, l, t);
        fmt::format_to(std::back_inserter(out_), ",\"s\":\"t\",\"args\":{{\"message\":{}", a);
        AppendDepth(depth, false);
        out_ += '}';
        return End();
      case EventKind::kCollBegin:
      case EventKind::kCollEnd: return WriteCollective(l, t, a, e.kind[i] == EventKind::kCollBegin, depth);
      case EventKind::kMarker:
      case EventKind::kSync: {
        // A sync event is the marker its label names (model/thread_sync.h); the reader turns it back.
        const SyncTable& s = t_.syncs();
        const std::string label = e.kind[i] == EventKind::kSync ? SyncLabel(s.kind[a], s.object[a], s.arg[a]) : "";
        Begin("i", e.kind[i] == EventKind::kSync ? std::string_view(label) : t_.str(StringId(a)), chrome::kMarkerCategory, l, t);
        out_ += ",\"s\":\"t\"";
        if (depth >= 0) out_ += ",\"args\":{", AppendDepth(depth, true), out_ += '}';
        return End();
      }
    }
  }

  const Trace& t_;
  TextSink& sink_;
  std::string& out_;  // sink_.text()
};

}  // namespace

void WriteChromeJson(const Trace& trace, TextSink& out) { ChromeJsonWriter(trace, out).Run(); }

std::string ChromeJson(const Trace& trace) {
  std::string whole;
  TextSink sink(whole);
  WriteChromeJson(trace, sink);
  return whole;
}

Status WriteChromeJson(const Trace& trace, const std::string& path, const OutputOptions& options) {
  auto write = [&](TextSink& out) {
    WriteChromeJson(trace, out);
    return OkStatus();
  };
  return WriteOutputStream(path, write, options, kChromeExporter.what, AnyRegularFile);
}

namespace {
constexpr std::string_view kExtensions[] = {".json"};
}  // namespace

constinit const Exporter kChromeExporter{kChromeFormat, kExtensions, WriteChromeJson, "a regular file",
                                         "Chrome trace events for Perfetto and chrome://tracing"};

}  // namespace grainscope
