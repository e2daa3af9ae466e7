// The events where each location synchronises with another, for the waiting-time
// characterisation (characterize.cc), which looks for the last one two locations shared.
#pragma once

#include <cstdint>
#include <vector>

#include "model/hb_graph.h"
#include "model/trace.h"

namespace grainscope {

// An event where a location synchronises: an end of a point edge (a matched message or a
// dependency of any kind; kSend for its source, kRecv for its target, with the partner and its
// event), or a collective end.
struct SyncEvent {
  EventIndex event;
  EventKind kind;
  uint32_t partner = 0;
  EventIndex partner_event = 0;
};

// Per location, its synchronising events in event order, gathered from the happens-before
// graph's edges so that nobody needs to read every event.
std::vector<std::vector<SyncEvent>> SyncEventsByLocation(const Trace& t, const HbGraph& g);

// The member row of location l in collective instance c, or UINT32_MAX.
uint32_t MemberOf(const CollectiveTable& coll, CollectiveId c, LocationId l);

}  // namespace grainscope
