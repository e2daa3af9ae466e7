// Call sites of communication: for every message end and collective membership, the
// communication call around it (MPI_Recv, MPI_Wait, the seed's "receive", ...) and the code
// region that made the call. Wait-state analysis measures waiting between the calls' enters and
// leaves, and names sync points by call and caller.
#pragma once

#include <vector>

#include "model/trace.h"

namespace grainscope {

struct CallSite {
  RegionId call;    // innermost enclosing region when it is a communication region; else invalid
  RegionId caller;  // innermost enclosing non-communication region; invalid at top level
  // The call's Enter and Leave events; without a call, the event itself, and for a collective
  // membership its kCollBegin and kCollEnd (a collective outside any call region, such as the one
  // in MPI_Init, whose role is not communication, still has its waits).
  EventIndex enter = kNoEvent;
  EventIndex leave = kNoEvent;
};

struct CallSites {
  std::vector<CallSite> send;    // per message, around its kSend (enter/leave kNoEvent if unsent)
  std::vector<CallSite> recv;    // per message, around its kRecv
  std::vector<CallSite> member;  // per collective member row, around its kCollBegin (its arrival)
  // Per member row, around its kCollEnd: where it waits. The same as `member` for a blocking
  // collective; for a non-blocking one (MPI_Ibarrier ... MPI_Wait) the completion call.
  std::vector<CallSite> member_end;
  // (The innermost region of every segment is the trace index's: CallNesting::RegionAfter.)
};

CallSites FindCallSites(const Trace& trace);

// How long the communication call around a message end or collective membership lasted: 0 when
// the event is not inside a call, or the call never ended.
TimeNs CallDuration(const Trace& trace, LocationId location, const CallSite& site);

}  // namespace grainscope
