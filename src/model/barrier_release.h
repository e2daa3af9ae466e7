// When a fork-join team's barrier released its members (issue 31).
//
// LLVM's libomp reports the end of a worker's implicit barrier at the end of a parallel region
// only when the worker is released into its next parallel region (the OMPT callbacks come from
// its fork barrier), so a recorded worker "leaves" that barrier after the master has already
// forked the next team, and the serial time in between looks like barrier waiting, barrier
// completion and, on the critical path, barrier time. What happened: the barrier ended for
// every member when its last member arrived (the master leaves it then), and the worker was idle
// from there until its next task.
//
// The rule, for every barrier instance: a member's leave is late when the member's next event
// after it (region ends and thread ends skipped) begins a thread (a task of the next team) whose
// fork is stamped at or before that leave -- no member can still be in a barrier of a team whose
// master has already forked the next one. A late leave, and the region and thread ends that
// follow it, move back to the instance's release: the earliest leave of its members that were not
// late, and never before its last arrival (nor before the member's previous event). The time from
// the release to the next task is then outside every region: idle on a worker thread
// (analysis/regions/time_classes.h), and a blocking segment into the fork edge, never work on
// the critical path. Score-P's OPARI2 records leave on time (before the next fork): untouched.
//
// A worker's last implicit barrier is never reported left at all (there is no next fork). When a
// thread's events end inside a barrier instance that other members left (it completed), the
// builder adds the leave at the instance's release (TraceBuilder::CloseNeverLeftBarriers), so the
// master's wait for that thread is waiting, not work; an instance nobody left stays unfinished.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "model/dependencies.h"
#include "model/sync_table.h"
#include "model/thread_sync.h"
#include "model/trace.h"

namespace grainscope {

struct LateBarrierEnds {
  uint64_t moved = 0;     // members whose leave moved
  TimeNs moved_ns = 0;    // by how much, summed
  LocationId first_location;
  TimeNs first_from = 0, first_to = 0;
};

// The release of a barrier instance: its earliest leave that was not late, never before its last
// arrival (the last arrival itself when every leave was late, or none was recorded).
TimeNs BarrierRelease(TimeNs last_arrival, TimeNs earliest_on_time_leave);

// Moves the late leaves of `sync.barriers` (FindThreadSync's instances, whose fork edges are in
// `sync.edges`) in `times`; event kinds and order are unchanged.
LateBarrierEnds MoveLateBarrierEnds(const ThreadSync& sync, const SyncTable& syncs,
                                    std::span<const std::vector<EventKind>> kinds,
                                    std::span<const std::vector<uint32_t>> args,
                                    std::span<std::vector<TimeNs>> times);

}  // namespace grainscope
