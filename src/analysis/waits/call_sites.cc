#include "analysis/waits/call_sites.h"

#include <algorithm>

#include "model/trace_index.h"

namespace grainscope {

CallSites FindCallSites(const Trace& t) {
  CallSites cs;
  const MessageTable& msgs = t.messages();
  const CollectiveTable& coll = t.collectives();
  cs.send.resize(msgs.size());
  cs.recv.resize(msgs.size());
  cs.member.resize(coll.member_location.size());
  cs.member_end.resize(coll.member_location.size());
  std::vector<uint8_t> completed_apart(coll.member_location.size(), 0);  // member_end set by the scan
  // Region roles looked up once: the scan below asks for every enter and message event.
  std::vector<uint8_t> comm(t.regions().size());
  for (uint32_t r = 0; r < comm.size(); ++r) comm[r] = IsCommunication(t.regions()[r].role);

  // Member rows by (location, begin event): rows of a location in begin order.
  std::vector<std::vector<uint32_t>> rows(t.locations().size());
  for (uint32_t k = 0; k < coll.member_location.size(); ++k) rows[coll.member_location[k].value].push_back(k);

  std::vector<CallSite*> pending;  // sites in a communication call that has not ended, innermost last
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    const CallNesting nesting = t.index().nesting(LocationId(l));
    std::vector<uint32_t>& mine = rows[l];
    std::sort(mine.begin(), mine.end(), [&](uint32_t a, uint32_t b) { return coll.member_begin[a] < coll.member_begin[b]; });
    size_t next_row = 0;
    pending.clear();
    // The event columns through plain pointers: the stores into the sites below would otherwise
    // make the compiler reload the vectors' sizes and data on every event.
    const EventKind* kinds = ev.kind.data();
    const uint32_t* args = ev.arg.data();
    const EventIndex n = static_cast<EventIndex>(ev.size());
    // The innermost non-communication call at or around call `c` (Enter events), as a region.
    auto caller_of = [&](EventIndex c) {
      while (c != kNoEvent && comm[args[c]]) c = nesting.Parent(c);
      return nesting.RegionOf(c);
    };
    EventIndex call = kNoEvent;  // the innermost open call (its Enter): nesting.Enclosing(i)
    for (EventIndex i = 0; i < n; ++i) {
      const EventKind kind = kinds[i];
      if (kind == EventKind::kEnter) {
        call = i;
      } else if (kind == EventKind::kLeave) {
        for (; !pending.empty() && pending.back()->enter == call; pending.pop_back()) pending.back()->leave = i;
        call = nesting.Parent(call);
      } else if (kind == EventKind::kSend || kind == EventKind::kRecv || kind == EventKind::kCollBegin) {
        CallSite* site = nullptr;
        if (kind == EventKind::kSend) site = &cs.send[args[i]];
        if (kind == EventKind::kRecv) site = &cs.recv[args[i]];
        uint32_t row = UINT32_MAX;
        if (kind == EventKind::kCollBegin && next_row < mine.size()) site = &cs.member[row = mine[next_row++]];
        if (site != nullptr) {
          site->caller = caller_of(call);
          if (call != kNoEvent && comm[args[call]]) {
            site->call = RegionId(args[call]);
            site->enter = call;
            pending.push_back(site);  // leave filled in when the call ends
          } else {
            // No call around it: the event itself; a collective spans its own begin and end.
            site->enter = i;
            site->leave = row != UINT32_MAX && coll.member_end[row] != kNoEvent ? coll.member_end[row] : i;
          }
        }
      } else if (kind == EventKind::kCollEnd && call != kNoEvent && comm[args[call]]) {
        // A non-blocking collective completes in a call entered after its begin (MPI_Wait).
        const uint32_t row = coll.member_row(CollectiveId(args[i]), LocationId(l));
        if (row != UINT32_MAX && call > coll.member_begin[row]) {
          CallSite& site = cs.member_end[row];
          site.caller = caller_of(call);
          site.call = RegionId(args[call]);
          site.enter = call;
          completed_apart[row] = 1;
          pending.push_back(&site);
        }
      }
    }
  }
  for (uint32_t k = 0; k < cs.member.size(); ++k) {
    if (!completed_apart[k]) cs.member_end[k] = cs.member[k];
  }
  return cs;
}

TimeNs CallDuration(const Trace& trace, LocationId location, const CallSite& site) {
  if (!site.call.valid() || site.enter == kNoEvent || site.leave == kNoEvent) return 0;
  const EventColumns& ev = trace.events(location);
  return ev.time[site.leave] - ev.time[site.enter];
}

}  // namespace grainscope
