// A share of a trace: what one of N analysis processes of grainscope-mpi reads (docs/scale.md,
// "Many processes"; Scalasca's parallel replay gives each analysis process the events of its own
// ranks). A share is a set of whole processes (consecutive in the order of their first
// location; their locations need not be: Score-P lists every rank's master thread first), so that
// every edge between threads of a process (thread sync, GPU launches) stays inside one share and
// only messages and collectives cross shares.
//
// A share's Trace holds every definition of the whole trace (its locations, regions and
// communicators have the ids they have when the trace is read whole) and the events of its own
// locations only. A message whose other side is in another share is a message row with that side
// missing, listed as a ShareMessageEnd: its channel and its position k on it, the same numbers the
// other side's share computes, so that the k-th send of a channel in one share and the k-th
// receive in another are one message. A collective instance with members in other shares is a row
// holding the share's own members, listed as a ShareCollective by (communicator, owner, sequence).
// Such ends are not reported as unmatched by the share: only the shares together know.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "model/trace.h"

namespace grainscope {

// The locations of a share: per LocationId value, whether the share holds it; empty: all.
struct LocationSet {
  std::vector<uint8_t> member;
  bool Holds(uint32_t l) const { return member.empty() || (l < member.size() && member[l] != 0); }
  bool whole() const { return member.empty(); }
};

// Splits the processes (`process_of`: per location, its process; processes in order of their
// first location) into `count` consecutive groups with about equal event counts (`events` per
// location), and gives each group's locations. Every share gets a process while any is left, so
// with fewer processes than shares the last ones are empty.
std::vector<LocationSet> ShareLocations(std::span<const uint32_t> process_of, std::span<const uint64_t> events,
                                        uint32_t count);

// One end of a message whose other end is in another share.
struct ShareMessageEnd {
  MessageId row;            // in the share's trace; this side's event is there, the other's is not
  uint32_t communicator = 0;  // the format's number of the communicator, the same in every share
  uint32_t sender = 0;      // LocationId values
  uint32_t receiver = 0;
  int32_t tag = 0;
  uint64_t key = 0;         // what else tells channels apart (OTF2: grainscope's message key)
  uint32_t k = 0;           // this end's position among its side of the channel
  bool is_send = false;
};

// A collective instance with members in other shares.
struct ShareCollective {
  CollectiveId row;           // in the share's trace: the share's own members
  uint32_t communicator = 0;  // as in ShareMessageEnd
  uint32_t owner = 0;         // for a communicator per location (MPI_COMM_SELF): that location, else ~0
  uint32_t sequence = 0;      // the instance's number on the communicator
};

struct TraceShare {
  LocationSet locations;
  std::vector<uint32_t> share_of_location;  // every location's share, by LocationId value
  Trace trace;
  std::vector<ShareMessageEnd> messages;        // by channel, then k
  std::vector<ShareCollective> collectives;     // by row
};

}  // namespace grainscope
