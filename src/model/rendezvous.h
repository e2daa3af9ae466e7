// Rendezvous sends: an MPI send above the library's eager limit (or a synchronous one, MPI_Ssend
// and MPI_Issend) cannot complete before its receive is posted, so the sender's waiting in it is
// waiting for the receiver (Scalasca's late receiver), not work. The edge "receive posted -> send
// completed" (dependency kind rendezvous) makes every analysis see it: the critical path passes
// to the late receiver instead of charging MPI_Send, and a replay delays the send's completion
// when the receive is posted later.
//
// Ends: the receive is posted at its kRecvPost event (non-blocking), else at the Enter of the call
// that holds its kRecv; the send completes at its kSendComplete event (non-blocking), else at the
// Leave of the call that holds its kSend. No edge when the send completed before the receive was
// posted (it went eagerly after all: a larger limit, or clocks that disagree).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "model/dependencies.h"
#include "model/trace.h"

namespace grainscope {

// Open MPI's shared-memory eager limit is 4 KiB and its TCP one 64 KiB; without the library's
// own value a trace is read with this one, and says so ("assumed").
inline constexpr uint64_t kAssumedEagerLimitBytes = 65536;

struct RendezvousEdges {
  DependencyTable edges;  // kind rendezvous, in message order
};

// The eager limit a trace was read with (its metadata: metadata_keys.h), or nullopt for a trace
// that is not MPI's.
struct EagerLimit {
  uint64_t bytes = kAssumedEagerLimitBytes;
  std::string_view source;  // "the MPI library's btl_vader_eager_limit", "assumed: ..."
};
std::optional<EagerLimit> TraceEagerLimit(const Trace& trace);
// How many of the trace's dependency edges are rendezvous edges.
size_t RendezvousSends(const Trace& trace);

// The one rule for which messages go by rendezvous: per message, 1 when it is matched, between two
// locations, and above `eager_limit_bytes` or sent by a synchronous call (Region::synchronous_send:
// MPI_Ssend, MPI_Issend).
std::vector<uint8_t> RendezvousMessages(const TraceBody& body, uint64_t eager_limit_bytes);
// The same for a trace, under the limit its rendezvous edges were decided with (TraceEagerLimit);
// all 0 for a trace without one (not an MPI trace): what the wait states call a rendezvous send.
std::vector<uint8_t> RendezvousMessages(const Trace& trace);

// The Enter and the Leave of the call (the innermost region) that holds event e of a location
// with event kinds `kinds`, looked for within 64 events; kNoEvent when there is none that near.
EventIndex EnclosingEnter(std::span<const EventKind> kinds, EventIndex e);
EventIndex EnclosingLeave(std::span<const EventKind> kinds, EventIndex e);

// The rendezvous edges of `body`'s matched messages, with `times` its events' times per location.
RendezvousEdges FindRendezvousEdges(const TraceBody& body, std::span<const std::span<const TimeNs>> times,
                                    uint64_t eager_limit_bytes);

}  // namespace grainscope
