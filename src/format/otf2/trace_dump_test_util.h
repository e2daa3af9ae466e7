// Test-only: a canonical text dump of a Trace, for round-trip tests of the format writers.
//
// Ids are replaced by what they name (region names and roles, a message's ends and contents,
// a collective's members), so two traces that say the same thing dump identically even when a
// format numbers messages, regions or collectives differently. Region external ids and the
// format name are left out: formats renumber them.
#pragma once

#include <string>

#include <fmt/format.h>

#include "model/trace.h"

namespace grainscope::testing_util {

inline std::string DescribeMessage(const Trace& t, uint32_t m) {
  const MessageTable& mt = t.messages();
  auto loc = [&](LocationId l) { return l.valid() ? std::string(t.str(t.location(l).name)) : "-"; };
  auto region = [&](RegionId r) { return r.valid() ? std::string(t.str(t.region(r).name)) : "-"; };
  auto ev = [](EventIndex e) { return e == kNoEvent ? std::string("-") : fmt::format("{}", e); };
  auto comm = [&](CommunicatorId c) {
    return c.valid() ? std::string(t.str(t.communicators()[c.value].name)) : "-";
  };
  return fmt::format("{}#{} -> {}#{} tag={} bytes={} name='{}' comm={} grains={}/{}", loc(mt.sender[m]),
                     ev(mt.send_event[m]), loc(mt.receiver[m]), ev(mt.recv_event[m]), mt.tag[m], mt.bytes[m],
                     t.str(mt.name[m]), comm(mt.communicator[m]), region(mt.send_grain[m]),
                     region(mt.recv_grain[m]));
}

inline std::string DescribeCollective(const Trace& t, uint32_t c) {
  const CollectiveTable& ct = t.collectives();
  std::string s = fmt::format("{} comm={} root={} [", CollectiveOpName(ct.op[c]),
                              ct.communicator[c].valid() ? t.str(t.communicators()[ct.communicator[c].value].name) : "-",
                              ct.root[c].valid() ? t.str(t.location(ct.root[c]).name) : "-");
  for (uint32_t k = ct.first_member[c]; k < ct.first_member[c + 1]; ++k) {
    s += fmt::format(" {}#{}..{} {}/{}", t.str(t.location(ct.member_location[k]).name), ct.member_begin[k],
                     ct.member_end[k], ct.member_bytes_sent[k], ct.member_bytes_received[k]);
  }
  return s + " ]";
}

inline std::string DumpTrace(const Trace& t) {
  std::string s = fmt::format("origin {} start {} end {} events {}\n", t.origin_ns(), t.start_ns(), t.end_ns(),
                              t.event_count());
  for (const MetadataEntry& e : t.metadata()) s += fmt::format("meta {}={}\n", t.str(e.key), t.str(e.value));
  for (const Communicator& c : t.communicators()) {
    s += fmt::format("communicator {}:", t.str(c.name));
    for (LocationId m : c.members) s += fmt::format(" {}", t.str(t.location(m).name));
    s += "\n";
  }
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const Location& loc = t.locations()[l];
    s += fmt::format("location {} kind={} id={} group={}\n", t.str(loc.name), LocationKindName(loc.kind),
                     loc.external_id, loc.group);
    const EventColumns& e = t.events(LocationId(l));
    for (size_t i = 0; i < e.size(); ++i) {
      std::string what;
      switch (e.kind[i]) {
        case EventKind::kEnter:
        case EventKind::kLeave: {
          const Region& r = t.region(RegionId(e.arg[i]));
          what = fmt::format("{} ({})", t.str(r.name), RegionRoleName(r.role));
          break;
        }
        case EventKind::kSend:
        case EventKind::kSendComplete:
        case EventKind::kRecvPost:
        case EventKind::kRecv: what = DescribeMessage(t, e.arg[i]); break;
        case EventKind::kCollBegin:
        case EventKind::kCollEnd: what = DescribeCollective(t, e.arg[i]); break;
        case EventKind::kMarker: what = std::string(t.str(StringId(e.arg[i]))); break;
        case EventKind::kSync: {
          const SyncTable& s = t.syncs();
          what = SyncLabel(s.kind[e.arg[i]], s.object[e.arg[i]], s.arg[e.arg[i]]);
          break;
        }
      }
      s += fmt::format("  {} {} {}\n", e.time[i], EventKindName(e.kind[i]), what);
    }
  }
  return s;
}

}  // namespace grainscope::testing_util
