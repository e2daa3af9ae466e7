#include "analysis/waits/call_sites.h"

#include <algorithm>

#include "model/trace_index.h"

namespace grainscope {

namespace {

// Per region whether its role is communication, looked up once: the scan asks for every enter and
// message event. An NCCL kernel is its stream's call: a p2p kernel receives at its end, and waited
// from its start.
std::vector<uint8_t> CommunicationRegions(const Trace& t) {
  std::vector<uint8_t> comm(t.regions().size());
  for (uint32_t r = 0; r < comm.size(); ++r) {
    const RegionRole role = t.regions()[r].role;
    comm[r] = IsCommunication(role) || role == RegionRole::kCommCollective;
  }
  return comm;
}

// Collective member rows per location in begin order: the order of the location's kCollBegin events.
std::vector<std::vector<uint32_t>> MemberRowsByLocation(const Trace& t) {
  const CollectiveTable& coll = t.collectives();
  std::vector<std::vector<uint32_t>> rows(t.locations().size());
  for (uint32_t k = 0; k < coll.member_location.size(); ++k) rows[coll.member_location[k].value].push_back(k);
  for (std::vector<uint32_t>& mine : rows) {
    std::sort(mine.begin(), mine.end(),
              [&](uint32_t a, uint32_t b) { return coll.member_begin[a] < coll.member_begin[b]; });
  }
  return rows;
}

// One location's events in order, following the open call: the sites of its sends, receives and
// collective arrivals, and of the non-blocking collectives it completes in a later call (marked in
// `completed_apart`). `mine`: the location's member rows in begin order.
void ScanLocation(const Trace& t, LocationId loc, const std::vector<uint8_t>& comm_of_region,
                  const std::vector<uint32_t>& mine, CallSites& cs, std::vector<uint8_t>& completed_apart) {
  const CollectiveTable& coll = t.collectives();
  const EventColumns& ev = t.events(loc);
  const CallNesting nesting = t.index().nesting(loc);
  size_t next_row = 0;
  std::vector<CallSite*> pending;  // sites in a communication call that has not ended, innermost last
  // The event columns and the roles through plain pointers: the stores into the sites below would
  // otherwise make the compiler reload the vectors' sizes and data on every event.
  const uint8_t* comm = comm_of_region.data();
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
      const uint32_t row = coll.member_row(CollectiveId(args[i]), loc);
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

}  // namespace

CallSites FindCallSites(const Trace& t) {
  CallSites cs;
  const size_t members = t.collectives().member_location.size();
  cs.send.resize(t.messages().size());
  cs.recv.resize(t.messages().size());
  cs.member.resize(members);
  cs.member_end.resize(members);
  std::vector<uint8_t> completed_apart(members, 0);  // member_end set by the scan
  const std::vector<uint8_t> comm = CommunicationRegions(t);
  const std::vector<std::vector<uint32_t>> rows = MemberRowsByLocation(t);
  for (uint32_t l = 0; l < t.locations().size(); ++l)
    ScanLocation(t, LocationId(l), comm, rows[l], cs, completed_apart);
  // A blocking collective waits where it arrives.
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
