#include "model/retime.h"

#include <algorithm>

#include <fmt/format.h>

#include "model/trace_builder.h"

namespace grainscope {

Result<Trace> Retime(const Trace& t, const std::vector<TimeNs>& times, std::string_view format_suffix) {
  if (times.size() != t.event_count())
    return Internal(fmt::format("retime: {} times for {} events", times.size(), t.event_count()));
  TraceBuilder b(fmt::format("{}{}", t.format(), format_suffix));
  for (const Location& l : t.locations()) {
    LocationId id = b.AddLocation(t.str(l.name), l.kind, l.external_id);
    b.SetLocationGroup(id, l.group);
  }
  for (const Region& r : t.regions()) b.AddRegion(t.str(r.name), r.role, r.external_id);
  for (const Communicator& c : t.communicators()) b.AddCommunicator(t.str(c.name), c.members);
  for (const MetadataEntry& m : t.metadata()) b.AddMetadata(t.str(m.key), t.str(m.value));
  for (const Diagnostic& d : t.diagnostics().entries()) b.diagnostics().AddCount(d.name, d.count, d.example);
  b.SetOrigin(t.origin_ns());
  const MessageTable& msgs = t.messages();
  for (uint32_t m = 0; m < msgs.size(); ++m) {
    MessageInfo info{msgs.sender[m], msgs.receiver[m], msgs.tag[m], t.str(msgs.name[m]), msgs.bytes[m],
                     msgs.communicator[m], msgs.send_grain[m], msgs.recv_grain[m]};
    b.AddMessage(info);
  }
  const CollectiveTable& coll = t.collectives();
  for (uint32_t c = 0; c < coll.size(); ++c) b.AddCollective(coll.op[c], coll.communicator[c], coll.root[c]);
  // bytes of each location's collective memberships, in the order its kCollBegin events come
  std::vector<std::vector<uint32_t>> begins(t.locations().size());
  for (uint32_t k = 0; k < coll.member_location.size(); ++k) begins[coll.member_location[k].value].push_back(k);

  size_t flat = 0;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const LocationId loc(l);
    const EventColumns& ev = t.events(loc);
    b.Reserve(loc, ev.size());
    std::vector<uint32_t>& mine = begins[l];
    std::sort(mine.begin(), mine.end(), [&](uint32_t a, uint32_t c) { return coll.member_begin[a] < coll.member_begin[c]; });
    size_t next_member = 0;
    for (EventIndex i = 0; i < ev.size(); ++i, ++flat) {
      const TimeNs time = times[flat];
      const uint32_t arg = ev.arg[i];
      switch (ev.kind[i]) {
        case EventKind::kEnter: b.Enter(loc, time, RegionId(arg)); break;
        case EventKind::kLeave: b.Leave(loc, time, RegionId(arg)); break;
        case EventKind::kSend: b.Send(loc, time, MessageId(arg)); break;
        case EventKind::kSendComplete: b.SendComplete(loc, time, MessageId(arg)); break;
        case EventKind::kRecvPost: b.RecvPost(loc, time, MessageId(arg)); break;
        case EventKind::kRecv: b.Recv(loc, time, MessageId(arg)); break;
        case EventKind::kMarker: b.Marker(loc, time, b.Intern(t.str(StringId(arg)))); break;
        case EventKind::kCollEnd: b.CollEnd(loc, time, CollectiveId(arg)); break;
        case EventKind::kCollBegin: {
          uint64_t sent = 0, received = 0;
          if (next_member < mine.size() && coll.member_begin[mine[next_member]] == i) {
            sent = coll.member_bytes_sent[mine[next_member]];
            received = coll.member_bytes_received[mine[next_member]];
            ++next_member;
          }
          b.CollBegin(loc, time, CollectiveId(arg), sent, received);
          break;
        }
      }
    }
  }
  return b.Finish();
}

}  // namespace grainscope
