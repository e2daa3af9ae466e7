// Test-only: every id, time and row of a trace as text, in storage order, so that two traces
// compare equal only when an analysis or a writer would read the same bytes from them (the
// readers' "the same on any number of threads" tests). Marker texts are printed, not their string
// ids; everything else is printed as stored.
#pragma once

#include <string>

#include <fmt/format.h>

#include "model/trace.h"

namespace grainscope::testing_util {

inline std::string ExactDump(const Trace& t) {
  std::string out = fmt::format("origin {}\n", t.origin_ns());
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const Location& loc = t.locations()[l];
    out += fmt::format("location {} '{}' kind={} id={} group={}\n", l, t.str(loc.name), static_cast<int>(loc.kind),
                       loc.external_id, loc.group);
    const EventColumns& ev = t.events(LocationId(l));
    for (size_t i = 0; i < ev.size(); ++i) {
      const bool text = ev.kind[i] == EventKind::kMarker;
      out += fmt::format("  {} {} {}\n", ev.time[i], EventKindName(ev.kind[i]),
                         text ? std::string(t.str(StringId(ev.arg[i]))) : std::to_string(ev.arg[i]));
    }
  }
  for (uint32_t r = 0; r < t.regions().size(); ++r) {
    out += fmt::format("region {} '{}' role={}\n", r, t.str(t.regions()[r].name), static_cast<int>(t.regions()[r].role));
  }
  for (const Communicator& c : t.communicators()) {
    out += fmt::format("communicator '{}':", t.str(c.name));
    for (LocationId m : c.members) out += fmt::format(" {}", m.value);
    out += "\n";
  }
  const MessageTable& m = t.messages();
  for (size_t i = 0; i < m.size(); ++i) {
    out += fmt::format("message {} {}#{} -> {}#{} tag={} bytes={} comm={} name='{}'\n", i, m.sender[i].value,
                       m.send_event[i], m.receiver[i].value, m.recv_event[i], m.tag[i], m.bytes[i],
                       m.communicator[i].value, t.str(m.name[i]));
  }
  const CollectiveTable& c = t.collectives();
  for (size_t i = 0; i < c.size(); ++i) {
    out += fmt::format("collective {} op={} comm={} root={}:", i, static_cast<int>(c.op[i]), c.communicator[i].value,
                       c.root[i].value);
    for (uint32_t k = c.first_member[i]; k < c.first_member[i + 1]; ++k) {
      out += fmt::format(" {}#{}..{} {}/{}", c.member_location[k].value, c.member_begin[k], c.member_end[k],
                         c.member_bytes_sent[k], c.member_bytes_received[k]);
    }
    out += "\n";
  }
  const DependencyTable& d = t.dependencies();
  for (size_t i = 0; i < d.size(); ++i) {
    out += fmt::format("dependency {} {}#{} -> {}#{}\n", static_cast<int>(d.kind[i]), d.from_location[i].value,
                       d.from_event[i], d.to_location[i].value, d.to_event[i]);
  }
  for (const MetadataEntry& e : t.metadata()) out += fmt::format("meta {} = {}\n", t.str(e.key), t.str(e.value));
  for (const Diagnostic& e : t.diagnostics().entries()) out += fmt::format("diag {} {} {}\n", e.name, e.count, e.example);
  return out;
}

}  // namespace grainscope::testing_util
