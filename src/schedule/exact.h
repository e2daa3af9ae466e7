// Exact scheduling by branch and bound, for small graphs and for checking the heuristics.
//
// Search space (complete for the model of schedule.h on identical processors): a partial
// schedule is extended by appending one ready task to one processor at its earliest start
// there. Three rules keep each schedule from being generated more than once, none of which can
// lose the optimum:
//   * start order: tasks are appended in increasing (start time, task index) order. Any
//     schedule can be "compacted" (re-generated in that order, every start only moving earlier)
//     until it is a fixed point, and fixed points are exactly what this order generates;
//   * processor normalisation: an empty processor is only tried if all lower ones are in use
//     (empty identical processors are interchangeable);
//   * equivalent tasks (same weight, same predecessors and successors with the same costs) are
//     appended in index order.
// Bounds, at each partial schedule with last start L: every unplaced task starts at >= L and at
// >= its earliest data-ready time, then needs its static b-level (communication can be zeroed)
// to the end; the remaining work fits into the processors' time after max(their last finish, the
// earliest possible next start). At the root: max(critical path, work / P) and, for graphs of up
// to kEnergeticMaxTasks tasks, energetic reasoning on time windows (heads and tails without
// communication), which is valid because zeroing communication only relaxes the problem.
// Children are tried in order of start time, then higher static b-level, task, processor.
#pragma once

#include <cstdint>
#include <optional>

#include "base/status.h"
#include "schedule/dag.h"
#include "schedule/schedule.h"

namespace grainscope {

inline constexpr uint32_t kEnergeticMaxTasks = 150;

struct ExactOptions {
  uint64_t node_limit = 1'000'000;  // partial schedules examined; 0: no limit
  double time_limit_s = 0;          // 0: no limit (a limit makes the result depend on the machine)
  std::optional<Schedule> initial;  // an upper bound to beat (the best heuristic schedule)
};

// A lower bound on the optimal makespan without communication: max(critical path, work / P)
// raised by energetic reasoning when the graph has at most kEnergeticMaxTasks tasks.
int64_t RootLowerBound(const TaskDag& g, uint32_t processors);

// The best schedule found; `optimal` is true only when the search finished within its limits
// (or a schedule reached the lower bound). Needs identical processors (FailedPrecondition else).
Result<Schedule> ScheduleExact(const TaskDag& g, const Machine& m, const ExactOptions& o);

}  // namespace grainscope
