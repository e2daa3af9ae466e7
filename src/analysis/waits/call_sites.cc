#include "analysis/waits/call_sites.h"

#include <algorithm>

namespace grainscope {

CallSites FindCallSites(const Trace& t) {
  CallSites cs;
  const MessageTable& msgs = t.messages();
  const CollectiveTable& coll = t.collectives();
  cs.send.resize(msgs.size());
  cs.recv.resize(msgs.size());
  cs.member.resize(coll.member_location.size());
  cs.innermost.resize(t.event_count());
  // Region roles looked up once: the scan below asks for every enter and message event.
  std::vector<uint8_t> comm(t.regions().size());
  for (uint32_t r = 0; r < comm.size(); ++r) comm[r] = IsCommunication(t.regions()[r].role);
  RegionId* innermost = cs.innermost.data();

  // Member rows by (location, begin event): rows of a location in begin order.
  std::vector<std::vector<uint32_t>> rows(t.locations().size());
  for (uint32_t k = 0; k < coll.member_location.size(); ++k) rows[coll.member_location[k].value].push_back(k);

  struct Frame {
    uint32_t region;
    EventIndex enter;
    size_t pending_begin;  // call sites waiting for this frame's leave
    uint32_t caller;       // innermost non-communication region at or below this frame
  };
  std::vector<Frame> stack;
  std::vector<CallSite*> pending;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    std::vector<uint32_t>& mine = rows[l];
    std::sort(mine.begin(), mine.end(), [&](uint32_t a, uint32_t b) { return coll.member_begin[a] < coll.member_begin[b]; });
    size_t next_row = 0;
    stack.clear();
    pending.clear();
    // The event columns through plain pointers: the stores into innermost below would otherwise
    // make the compiler reload the vectors' sizes and data on every event.
    const EventKind* kinds = ev.kind.data();
    const uint32_t* args = ev.arg.data();
    const EventIndex n = static_cast<EventIndex>(ev.size());
    RegionId open;  // the innermost open region: stack.back().region, or none
    for (EventIndex i = 0; i < n; ++i) {
      const EventKind kind = kinds[i];
      if (kind == EventKind::kEnter) {
        const uint32_t r = args[i];
        const uint32_t below = stack.empty() ? RegionId::kInvalidValue : stack.back().caller;
        stack.push_back({r, i, pending.size(), comm[r] ? below : r});
        open = RegionId(r);
      } else if (kind == EventKind::kLeave && !stack.empty()) {
        const size_t pending_begin = stack.back().pending_begin;
        stack.pop_back();
        for (size_t p = pending_begin; p < pending.size(); ++p) pending[p]->leave = i;
        pending.resize(pending_begin);
        open = stack.empty() ? RegionId() : RegionId(stack.back().region);
      } else if (kind == EventKind::kSend || kind == EventKind::kRecv || kind == EventKind::kCollBegin) {
        CallSite* site = nullptr;
        if (kind == EventKind::kSend) site = &cs.send[args[i]];
        if (kind == EventKind::kRecv) site = &cs.recv[args[i]];
        uint32_t row = UINT32_MAX;
        if (kind == EventKind::kCollBegin && next_row < mine.size()) site = &cs.member[row = mine[next_row++]];
        if (site != nullptr) {
          const Frame* top = stack.empty() ? nullptr : &stack.back();
          const bool in_call = top != nullptr && comm[top->region];
          site->caller = RegionId(top == nullptr ? RegionId::kInvalidValue : top->caller);
          if (in_call) {
            site->call = RegionId(top->region);
            site->enter = top->enter;
            pending.push_back(site);  // leave filled in when the call ends
          } else {
            // No call around it: the event itself; a collective spans its own begin and end.
            site->enter = i;
            site->leave = row != UINT32_MAX && coll.member_end[row] != kNoEvent ? coll.member_end[row] : i;
          }
        }
      }
      *innermost++ = open;
    }
  }
  return cs;
}

TimeNs CallDuration(const Trace& trace, LocationId location, const CallSite& site) {
  if (!site.call.valid() || site.enter == kNoEvent || site.leave == kNoEvent) return 0;
  const EventColumns& ev = trace.events(location);
  return ev.time[site.leave] - ev.time[site.enter];
}

}  // namespace grainscope
