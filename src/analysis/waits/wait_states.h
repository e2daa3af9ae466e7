// Wait states with Scalasca's definitions (SPEC.md §6). Times are measured at the communication
// calls around the events (call_sites.h); without calls (bare events) the events themselves.
//
//   late_sender       receive call waits for a send that starts later:
//                     max(0, min(enter(send call), leave(recv call)) - enter(recv call)); when one
//                     call completes several receives (waitall), only the largest is charged
//   late_receiver     a rendezvous send (bytes > eager limit, or a synchronous send call) waits for
//                     the receive to be posted: max(0, min(enter(recv call), leave(send call)) - enter(send call))
//   wait_at_barrier   max(0, min(latest enter, own leave) - own enter), barriers
//   wait_at_nxn       the same for other all-to-all collectives (allreduce, alltoall, ...)
//   late_broadcast    a non-root of a one-to-all collective entered before the root
//   early_reduce      the root of an all-to-one collective entered before the last sender
//   barrier_completion  max(0, own leave - max(earliest leave, latest enter)), all-to-all collectives
//   early_scan        a member of a scan / exscan entered before the last of the lower ranks:
//                     max(0, min(latest lower enter, own leave) - own enter)
// and, for threads (model/thread_sync.h), from their sync events and the edges between them:
//   lock_contention   a thread asked for a lock another thread held: max(0, min(release,
//                     acquired) - request), charged to the holder (its release is the late event)
//   condition_wait    a wait on a condition ended by another thread's signal: max(0, min(signal,
//                     wait end) - wait begin), charged to the signaller
//   join_wait         a join waited for the thread to end: max(0, min(thread end, join end) -
//                     join begin), charged to that thread
// (a thread barrier is a collective: wait_at_barrier and barrier_completion above), and for every
// other dependency edge whose target waits for its source (DependencyTargetWaits: a GPU
// synchronisation, a kind a reader adds):
//   dependency_wait   max(0, min(source, target) - the target's previous event), charged to the
//                     source's location: the blocking segment's wait as the replay measures it
//                     (measured_waits.h)
// and for GPU streams, whose work starts when launched (a launch edge's target does not wait, it
// idles):
//   launch_wait       a stream idle after its previous work until the host launched the next:
//                     max(0, min(launch call's enter, work's start) - the stream's previous event),
//                     charged to the launching thread (the GPU was launch-bound there)
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/waits/call_sites.h"
#include "model/hb_graph.h"
#include "model/rendezvous.h"
#include "model/trace.h"

namespace grainscope {

enum class WaitKind : uint8_t {
  kLateSender, kLateReceiver, kWaitAtBarrier, kWaitAtNxN, kLateBroadcast, kEarlyReduce, kBarrierCompletion,
  kLockContention, kConditionWait, kJoinWait, kDependencyWait, kEarlyScan, kLaunchWait,
};
inline constexpr int kWaitKindCount = 13;
std::string_view WaitKindName(WaitKind k);

struct WaitInstance {
  WaitKind kind;
  LocationId waiter;
  LocationId late;            // who it waited for (invalid for barrier completion)
  EventIndex waiter_from;     // waiter's call enter (the wait starts there)
  EventIndex waiter_event;    // waiter's completion event (kRecv / kCollEnd / kSend)
  EventIndex late_arrival;    // late location's call enter (its arrival), kNoEvent if none
  TimeNs start_ns = 0;        // when the waiting began (absolute)
  TimeNs wait_ns = 0;
  RegionId call;
  RegionId caller;
  uint32_t sync_point = 0;    // index into WaitStates::sync_points
  uint32_t message = UINT32_MAX;  // message row for point-to-point kinds
  uint32_t member = UINT32_MAX;   // collective member row of the waiter
};

struct SyncPoint {
  RegionId call;
  RegionId caller;
  StringId name;  // message name (seed arcs), else the empty string
  std::string label;
};

// For the report only: which sends are rendezvous the model decided (RendezvousMessages), under
// the limit its metadata names (TraceEagerLimit; `waits --eager-limit` decides again at load).
struct WaitStateOptions {
  uint64_t eager_limit_bytes = kAssumedEagerLimitBytes;  // above it a send is a rendezvous (LogGOPSim's S)
  std::string eager_limit_source = "assumed";            // where it comes from
};

struct WaitStates {
  std::vector<WaitInstance> instances;  // in time order (start_ns, then waiter)
  std::vector<SyncPoint> sync_points;   // in order of their first wait
  uint64_t count[kWaitKindCount] = {};
  TimeNs time_ns[kWaitKindCount] = {};
  TimeNs total_ns = 0;
  std::vector<TimeNs> by_location;  // per location: its waiting time
  std::vector<TimeNs> by_region;    // per call region: waiting inside it (last slot: no call)
  uint64_t eager_limit_bytes = 0;   // the options' eager limit and its source, as used
  std::string eager_limit_source;
};

WaitStates FindWaitStates(const Trace& trace, const CallSites& calls, const WaitStateOptions& options = {});

}  // namespace grainscope
