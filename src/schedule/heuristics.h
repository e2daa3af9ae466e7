// Scheduling heuristics for a TaskDag on a Machine (definitions: Kwok & Ahmad 1999, "Static
// scheduling algorithms for allocating directed task graphs to multiprocessors"; Topcuoglu,
// Hariri & Wu 2002 for HEFT; Yang & Gerasoulis 1994 for DSC). Every function is deterministic;
// ties are broken as written beside each one, and in the end always by the task's position in
// the graph's topological order (TaskDag::topo_order) and by the lower processor index.
#pragma once

#include <optional>
#include <string_view>

#include "schedule/dag.h"
#include "schedule/schedule.h"

namespace grainscope {

// HLFET (Hu's "highest level first with estimated times", the seed's TaskGrapher heuristic):
// ready task with the highest static b-level first; on the processor where it starts earliest
// (ties: earliest finish, matters with speeds), appended after the processor's last task.
Schedule ScheduleHlfet(const TaskDag& g, const Machine& m);

// ETF (Hwang et al. 1989): among all pairs (ready task, processor), the one with the earliest
// start time (appending); ties: higher static b-level.
Schedule ScheduleEtf(const TaskDag& g, const Machine& m);

// MCP (Wu & Gajski 1990): priority by ALAP start time (critical-path length - b-level with
// communication), ties by the ALAP times of the task's children in increasing order,
// compared lexicographically; each task goes where it starts earliest, inserted into an idle
// gap when one is long enough.
Schedule ScheduleMcp(const TaskDag& g, const Machine& m);

// HEFT (Topcuoglu et al. 2002): priority by upward rank (mean execution time over processors +
// the largest communication cost + rank of a successor); each task on the processor where it
// finishes earliest, with insertion.
Schedule ScheduleHeft(const TaskDag& g, const Machine& m);

// DSC (Yang & Gerasoulis 1994) on an unbounded number of virtual processors (clusters), then
// the clusters mapped onto the machine while list-scheduling the tasks in DSC's examination
// order: a cluster goes where its first task finishes earliest, the rest of it follows (with
// insertion).
Schedule ScheduleDsc(const TaskDag& g, const Machine& m);

// Exact branch-and-bound (exact.h has the options and the search).
enum class Heuristic { kHlfet, kEtf, kMcp, kHeft, kDsc, kExact, kBest };
std::string_view HeuristicName(Heuristic h);
std::optional<Heuristic> ParseHeuristic(std::string_view name);

}  // namespace grainscope
