#include "report/dump_report.h"
#include "report/json_writer.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "model/diagnostic_kinds.h"
#include "report/notes.h"
#include "report/rows.h"

namespace grainscope {
namespace {

using Json = nlohmann::ordered_json;

// One section of the dump: its rows (each an object of named fields, in a fixed order) and how
// many there are in the trace, of which only the first `top` are kept.
struct Section {
  std::string title;
  size_t total = 0;
  Json rows = Json::array();
};

class Dumper {
 public:
  Dumper(const Trace& t, size_t top) : t_(t), top_(top) {}

  std::vector<Section> Sections() {
    std::vector<Section> out;
    out.push_back(Locations());
    out.push_back(Regions());
    out.push_back(Communicators());
    for (uint32_t l = 0; l < t_.locations().size(); ++l) out.push_back(Events(LocationId(l)));
    out.push_back(Messages(true));
    out.push_back(Collectives());
    out.push_back(Dependencies());
    out.push_back(Messages(false));
    out.push_back(DiagnosticRows());
    return out;
  }

 private:
  // Adds the row `make` builds unless the section already has its `top` rows (then the row is not
  // even built: a trace has millions of messages); counts it either way.
  template <typename MakeRow>
  void Keep(Section& s, MakeRow make) const {
    if (top_ == 0 || s.rows.size() < top_) s.rows.push_back(make());
    ++s.total;
  }

  std::string LocName(LocationId l) const { return l.valid() ? std::string(t_.str(t_.location(l).name)) : "-"; }
  std::string CommName(CommunicatorId c) const {
    return c.valid() ? std::string(t_.str(t_.communicators()[c.value].name)) : "-";
  }
  TimeNs Rel(LocationId l, EventIndex e) const { return t_.events(l).time[e] - t_.origin_ns(); }
  // "rank 1#7 @1500": an event named by its location and index, with its time; "-" when absent.
  Json EventRef(LocationId l, EventIndex e) const {
    if (!l.valid() || e == kNoEvent) return "-";
    return fmt::format("{}#{} @{}", LocName(l), e, Rel(l, e));
  }

  Section Locations() const {
    Section s{"locations"};
    for (uint32_t l = 0; l < t_.locations().size(); ++l) {
      const Location& loc = t_.locations()[l];
      Keep(s, [&] {
        return Json{{"index", l}, {"name", t_.str(loc.name)}, {"kind", LocationKindName(loc.kind)},
                    {"id", loc.external_id}, {"group", loc.group}, {"events", t_.events(LocationId(l)).size()}};
      });
    }
    return s;
  }

  Section Regions() const {
    Section s{"regions"};
    for (uint32_t r = 0; r < t_.regions().size(); ++r) {
      const Region& reg = t_.regions()[r];
      Keep(s, [&] {
        return Json{{"index", r}, {"name", t_.str(reg.name)}, {"role", RegionRoleName(reg.role)}, {"id", reg.external_id}};
      });
    }
    return s;
  }

  Section Communicators() const {
    Section s{"communicators"};
    for (uint32_t c = 0; c < t_.communicators().size(); ++c) {
      const Communicator& comm = t_.communicators()[c];
      Keep(s, [&] {
        Json members = Json::array();
        for (LocationId m : comm.members) members.push_back(LocName(m));
        return Json{{"index", c}, {"name", t_.str(comm.name)}, {"members", members}};
      });
    }
    return s;
  }

  Section Events(LocationId l) const {
    Section s{fmt::format("events of {}", LocName(l))};
    const EventColumns& e = t_.events(l);
    for (EventIndex i = 0; i < e.size(); ++i) {
      if (top_ != 0 && s.rows.size() >= top_) {  // the rest is only counted: traces have millions
        s.total = e.size();
        break;
      }
      Keep(s, [&] {
        Json row{{"index", i}, {"time_ns", e.time[i] - t_.origin_ns()}, {"kind", EventKindName(e.kind[i])}};
        Describe(row, e.kind[i], e.arg[i]);
        return row;
      });
    }
    return s;
  }

  // What an event's argument names, as fields of its row.
  void Describe(Json& row, EventKind kind, uint32_t arg) const {
    switch (kind) {
      case EventKind::kEnter:
      case EventKind::kLeave:
        row["region"] = t_.str(t_.region(RegionId(arg)).name);
        row["role"] = RegionRoleName(t_.region(RegionId(arg)).role);
        return;
      case EventKind::kSend:
      case EventKind::kSendComplete:
      case EventKind::kRecvPost:
      case EventKind::kRecv: {
        const MessageTable& m = t_.messages();
        const bool sends = kind == EventKind::kSend || kind == EventKind::kSendComplete;
        row["message"] = arg;
        row["peer"] = LocName(sends ? m.receiver[arg] : m.sender[arg]);
        row["tag"] = m.tag[arg];
        row["bytes"] = m.bytes[arg];
        row["communicator"] = CommName(m.communicator[arg]);
        if (!t_.str(m.name[arg]).empty()) row["name"] = t_.str(m.name[arg]);
        return;
      }
      case EventKind::kCollBegin:
      case EventKind::kCollEnd: {
        const CollectiveTable& c = t_.collectives();
        row["collective"] = arg;
        row["op"] = CollectiveOpName(c.op[arg]);
        row["communicator"] = CommName(c.communicator[arg]);
        row["root"] = LocName(c.root[arg]);
        return;
      }
      case EventKind::kMarker: row["label"] = t_.str(StringId(arg)); return;
      case EventKind::kSync: {
        const SyncTable& s = t_.syncs();
        row["sync"] = SyncKindName(s.kind[arg]);
        row["object"] = fmt::format("{:x}", s.object[arg]);
        if (s.arg[arg] != 0) row["arg"] = s.arg[arg];
        return;
      }
    }
  }

  Json MessageRow(uint32_t i) const {
    const MessageTable& m = t_.messages();
    Json row{{"message", i},
             {"send", EventRef(m.sender[i], m.send_event[i])},
             {"recv", EventRef(m.receiver[i], m.recv_event[i])},
             {"sender", LocName(m.sender[i])},
             {"receiver", LocName(m.receiver[i])},
             {"tag", m.tag[i]},
             {"bytes", m.bytes[i]},
             {"communicator", CommName(m.communicator[i])}};
    if (!t_.str(m.name[i]).empty()) row["name"] = t_.str(m.name[i]);
    if (m.send_grain[i].valid()) row["send_grain"] = t_.str(t_.region(m.send_grain[i]).name);
    if (m.recv_grain[i].valid()) row["recv_grain"] = t_.str(t_.region(m.recv_grain[i]).name);
    return row;
  }

  // Matched messages, or (matched = false) the messages with one end missing.
  Section Messages(bool matched) const {
    Section s{matched ? "messages" : "unmatched message ends"};
    for (uint32_t i = 0; i < t_.messages().size(); ++i)
      if (t_.messages().matched(MessageId(i)) == matched) Keep(s, [&] { return MessageRow(i); });
    return s;
  }

  Section Collectives() const {
    Section s{"collectives"};
    const CollectiveTable& c = t_.collectives();
    for (uint32_t i = 0; i < c.size(); ++i) Keep(s, [&] { return CollectiveRow(i); });
    return s;
  }

  Json CollectiveRow(uint32_t i) const {
    const CollectiveTable& c = t_.collectives();
    Json members = Json::array();
    for (uint32_t k = c.first_member[i]; k < c.first_member[i + 1]; ++k) {
      const LocationId l = c.member_location[k];
      members.push_back(Json{{"location", LocName(l)}, {"enter", EventRef(l, c.member_begin[k])},
                             {"leave", EventRef(l, c.member_end[k])}, {"bytes_sent", c.member_bytes_sent[k]},
                             {"bytes_received", c.member_bytes_received[k]}});
    }
    return Json{{"collective", i}, {"op", CollectiveOpName(c.op[i])}, {"shape", ShapeName(ShapeOf(c.op[i]))},
                {"communicator", CommName(c.communicator[i])}, {"root", LocName(c.root[i])}, {"members", members}};
  }

  // The dependency edges (model/dependencies.h): lock hand-overs, fork/join, GPU launches and
  // syncs, rendezvous sends (model/rendezvous.h).
  Section Dependencies() const {
    Section s{"dependencies"};
    const DependencyTable& d = t_.dependencies();
    for (uint32_t i = 0; i < d.size(); ++i) {
      Keep(s, [&] {
        return Json{{"dependency", i}, {"kind", DependencyKindName(d.kind[i])},
                    {"from", EventRef(d.from_location[i], d.from_event[i])}, {"to", EventRef(d.to_location[i], d.to_event[i])}};
      });
    }
    return s;
  }

  static std::string_view ShapeName(CollectiveShape shape) {
    switch (shape) {
      case CollectiveShape::kAllToAll: return "all_to_all";
      case CollectiveShape::kOneToAll: return "one_to_all";
      case CollectiveShape::kAllToOne: return "all_to_one";
      case CollectiveShape::kPrefix: return "prefix";
      case CollectiveShape::kOther: break;
    }
    return "other";
  }

  Section DiagnosticRows() const {
    Section s{"diagnostics"};
    for (const Diagnostic& d : t_.diagnostics().entries()) {
      const DiagnosticKind& kind = KindOf(d.kind);
      Keep(s, [&] {
        return Json{{"name", d.name}, {"count", d.count},
                    {"severity", DiagnosticSeverityName(kind.severity)}, {"example", d.example}};
      });
    }
    return s;
  }

  const Trace& t_;
  size_t top_;
};

// A field's value in text output: numbers and plain words as they are, other strings quoted, a
// member list in brackets.
std::string TextValue(const Json& v) {
  if (v.is_array()) {
    std::string s = "[";
    for (const Json& e : v) {
      if (e.is_object()) {
        s += "\n      ";
        for (const auto& [key, value] : e.items()) s += fmt::format("{}={} ", key, TextValue(value));
        s.pop_back();
      } else {
        s += (s.size() > 1 ? " " : "") + TextValue(e);
      }
    }
    return s + (v.empty() || !v.front().is_object() ? "]" : "\n    ]");
  }
  if (!v.is_string()) return JsonReportWriter::Dump(v);
  const std::string& s = v.get_ref<const std::string&>();
  const bool plain = !s.empty() && s.find_first_of(" \t\n\"'=[]") == std::string::npos;
  return plain ? s : JsonReportWriter::Dump(Json(s));
}

std::string RenderText(const Trace& t, const std::vector<Section>& sections, const RenderOptions& o) {
  std::string out = fmt::format("{}\n  format {}  origin_ns {}  start_ns {}  end_ns {}  events {}\n", o.source,
                                t.format(), t.origin_ns(), t.start_ns() - t.origin_ns(), t.end_ns() - t.origin_ns(),
                                t.event_count());
  for (const MetadataEntry& e : t.metadata())
    out += fmt::format("  meta {}={}\n", t.str(e.key), TextValue(Json(t.str(e.value))));
  for (const Section& s : sections) {
    out += fmt::format("\n{} ({}):\n", s.title, s.total);
    for (const Json& row : s.rows) {
      std::string line = "   ";
      for (const auto& [key, value] : row.items()) line += fmt::format(" {}={}", key, TextValue(value));
      out += line + "\n";
    }
    out += RowsLeftOut(s.total, s.rows.size(), "    ");
  }
  return out;
}

}  // namespace

Result<std::string> RenderDump(const Trace& trace, const RenderOptions& o) {
  if (o.format != OutputFormat::kText && o.format != OutputFormat::kJson)
    return InvalidArgument(fmt::format("dump has no {} output (use text or json)", OutputFormatName(o.format)));
  const std::vector<Section> sections = Dumper(trace, o.top).Sections();
  if (o.format == OutputFormat::kText) return RenderText(trace, sections, o);
  Json j;
  j["file"] = o.source;
  j["format"] = trace.format();
  j["origin_ns"] = trace.origin_ns();
  j["start_ns"] = trace.start_ns() - trace.origin_ns();
  j["end_ns"] = trace.end_ns() - trace.origin_ns();
  j["events"] = trace.event_count();
  Json meta = Json::object();
  for (const MetadataEntry& e : trace.metadata()) meta[std::string(trace.str(e.key))] = trace.str(e.value);
  j["metadata"] = meta;
  Json sections_json = Json::array();
  for (const Section& s : sections)
    sections_json.push_back(Json{{"section", s.title}, {"total", s.total}, {"rows", s.rows}});
  j["sections"] = sections_json;
  return FinishJson(j, {});
}

}  // namespace grainscope
