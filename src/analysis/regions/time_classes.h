// Where each location's time went: computation, MPI by kind, thread and OpenMP synchronisation,
// GPU work, idle. The summary a user of Scalasca's or Vampir's views reads first, for every trace
// (with or without grains).
//
// A location's share of the run span [trace start, trace end] (the earliest and the latest event
// of the whole trace) splits into classes that add up to the span exactly:
//   idle             before the location's first event and after its last; time outside any
//                    region on a worker thread (a thread location of another location's process:
//                    Scalasca's "idle threads" between parallel regions) or before a thread begins
//                    a task of a team (the stretch ending at a thread_begin sync event: a worker
//                    released from its team's barrier has no work until the next fork); and, in a
//                    trace with grain regions, time outside them on any location (the seed's
//                    processors are busy only in grains: the EPA's utilisation); on a GPU stream,
//                    time outside its kernels and copies (inside an annotation span too)
//   point_to_point   inside a point-to-point or one-sided call (roles point_to_point, one_sided:
//                    model/region_roles.h)
//   collective       inside a collective call that is not a barrier (role collective)
//   synchronization  inside an MPI barrier or wait/test call (role barrier and an MPI name:
//                    MPI_Barrier; role wait: MPI_Wait*, MPI_Test*)
//   thread_sync      inside any other barrier (role barrier: an OpenMP barrier, a barrier the
//                    format marks as one: IsMpiRegion in model/region_roles.h tells them apart)
//                    and, on threads, blocked in a synchronisation the sync events mark
//                    (model/thread_sync.h): from a lock request to its acquisition, a condition
//                    wait's begin to its end, a join's begin to its end, a thread barrier's enter to
//                    its leave (what would otherwise be computation or idle time); a task the
//                    thread runs meanwhile (between task_begin and task_end: OpenMP runs tasks in
//                    barriers and taskwaits) is the task's time, not waiting; and, on any
//                    location, the waiting for a dependency edge (model/hb_graph.h) whose kind
//                    waits (DependencyTargetWaits: a GPU synchronisation, a reader's own kind) in
//                    a stretch that would be computation: from the stretch's start until the
//                    edge's source, the wait the replay measures (measured_waits.h); and inside
//                    a call waiting for a GPU (role device_sync: cudaStreamSynchronize)
//   other_mpi        inside an MPI call of no communication role (role mpi_other: communicator
//                    management, MPI_Comm_rank, ...)
//   init_finalize    inside the library's start-up and shut-down (role init_finalize: MPI_Init,
//                    MPI_Init_thread, MPI_Finalize), kept apart as Scalasca does (on a short run
//                    MPI_Init's second would otherwise read as most of the MPI time)
//   gpu              inside work on a GPU: kernels, copies, memsets, NCCL / RCCL kernels (roles
//                    kernel, memcpy, memset, comm_collective); the host's runtime calls that
//                    launch or wait for it are the host's computation, less the waiting the
//                    dependency edges show (thread_sync)
//   computation      the rest: inside code regions and grains, and outside any region on a rank,
//                    process or seed processor of a trace without grains (an MPI rank computes
//                    between its calls, which are the only regions its wrapper records)
// A region nested in a call counts as that call (the outermost call decides: its time is the
// call's, whatever it does inside).
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace grainscope {

enum class TimeClass : uint8_t {
  kComputation = 0,
  kPointToPoint,
  kCollective,
  kSynchronization,
  kOtherMpi,
  kInitFinalize,
  kThreadSync,
  kGpu,
  kIdle,
};
inline constexpr int kTimeClassCount = 9;
// "computation", "point_to_point", "collective", "synchronization", "other_mpi", "init_finalize",
// "thread_sync", "gpu", "idle": the JSON and CSV names (keys get "_ns").
std::string_view TimeClassName(TimeClass c);
// Time spent blocked: MPI synchronisation or any other (the Gantt chart's blocked stripes).
inline bool IsBlocked(TimeClass c) { return c == TimeClass::kSynchronization || c == TimeClass::kThreadSync; }

// The class of the time inside a region, when no call encloses it (kComputation for code regions
// and grains).
TimeClass RegionTimeClass(const Trace& trace, RegionId region);

struct LocationTime {
  LocationId location;
  TimeNs ns[kTimeClassCount] = {};  // by TimeClass; they add up to the span
  TimeNs operator[](TimeClass c) const { return ns[static_cast<int>(c)]; }
};

struct TimeBreakdown {
  TimeNs span_ns = 0;                   // trace end - trace start
  std::vector<LocationTime> locations;  // every location, in location order
  TimeNs total[kTimeClassCount] = {};   // summed over locations (span x locations in all)
  // Per region: the class most of its exclusive time has above (an OpenMP barrier region's time is
  // blocked: synchronisation), else RegionTimeClass. The region table shows this one, so a region
  // is never classed apart from its own time.
  std::vector<TimeClass> region_class;
};

TimeBreakdown ComputeTimeBreakdown(const Trace& trace);

// Hands every stretch of every location's time between its first and its last event to
// `stretch(location, class, start, stop)`, locations in order, each in time order: the walk
// ComputeTimeBreakdown sums (the Gantt chart draws its lanes from it).
void ForEachClassStretch(const Trace& trace,
                         const std::function<void(LocationId, TimeClass, TimeNs, TimeNs)>& stretch);

// The Gantt chart's blocked periods: the stretches of a location's time that the breakdown above
// classes as synchronization, adjacent stretches of one cause merged. A blocked span is inside a
// call (an MPI wait, test or barrier call, an OpenMP barrier region: `call` is the outermost such
// region) or a thread blocked by its sync events outside any call (a lock request to its
// acquisition, a condition wait, a join, a thread barrier).
// kDependency: the waiting for a dependency edge's source in a stretch that would be computation.
enum class BlockCause : uint8_t { kCall, kLock, kCondition, kJoin, kBarrier, kDependency };
struct BlockedSpan {
  TimeNs start = 0;
  TimeNs stop = 0;
  BlockCause cause = BlockCause::kCall;
  RegionId call;  // for kCall
};
// Per location, in location order; each location's spans in time order and disjoint.
std::vector<std::vector<BlockedSpan>> ComputeBlockedSpans(const Trace& trace);
// The call's region name, or "lock", "condition", "join", "barrier".
std::string_view BlockedSpanCause(const Trace& trace, const BlockedSpan& span);

}  // namespace grainscope
