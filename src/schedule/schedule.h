// The target machine and a schedule of a TaskDag on it.
//
// Machine model (SPEC.md §8): P fully connected processors; an edge's communication cost is paid
// only when its two tasks run on different processors, and communication overlaps computation
// (it occupies no processor). Processors are identical unless `speeds` gives each one a
// relative speed; a task of weight w then runs for round(w / speed) time units (at least 1 when
// w > 0). Communication costs do not depend on speeds.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "base/status.h"
#include "schedule/dag.h"

namespace grainscope {

struct Machine {
  uint32_t processors = 1;
  std::vector<double> speeds;  // empty: identical processors of speed 1; else one per processor

  bool identical() const { return speeds.empty(); }
  int64_t ExecTime(int64_t weight, uint32_t processor) const;
};

// Fails when there are no processors, or speeds are given for a different number of processors
// or are not positive.
Status CheckMachine(const Machine& m);

struct TaskSlot {
  uint32_t processor = 0;
  int64_t start = 0;
  int64_t finish = 0;
};

struct Schedule {
  std::string heuristic;        // hlfet, etf, mcp, heft, dsc, exact
  uint32_t processors = 0;
  std::vector<TaskSlot> slots;  // indexed by task
  int64_t makespan = 0;
  bool optimal = false;         // proven optimal (the exact search finished, or makespan == lower bound)
  int64_t lower_bound = 0;      // a proven lower bound on the optimal makespan
  uint64_t search_nodes = 0;    // exact search: partial schedules examined
};

// Checks every constraint of the model: each task placed once on an existing processor, runs
// for its execution time, starts after each predecessor's finish (+ cost when on another
// processor), no two tasks overlap on a processor, makespan = latest finish. Used by tests and
// the benchmark to keep the heuristics honest.
Status ValidateSchedule(const TaskDag& g, const Machine& m, const Schedule& s);

// The simple lower bound every schedule respects: max(critical path without communication,
// ceil(total work / P)) on identical processors (with speeds: fastest-processor path and total
// work over the sum of speeds).
int64_t SimpleLowerBound(const TaskDag& g, const Machine& m);

// Sets makespan (latest finish), and `optimal` when it reaches the lower bound.
void FinishSchedule(const TaskDag& g, const Machine& m, Schedule& s);

// Busy intervals of one processor, in time order, for placing tasks with or without insertion
// into idle gaps.
class ProcessorTimeline {
 public:
  // Earliest start >= ready of a task of `duration`: in the first idle gap it fits into
  // (insertion), or after the last task (no insertion).
  int64_t EarliestStart(int64_t ready, int64_t duration, bool insertion) const;
  void Place(int64_t start, int64_t finish);
  int64_t available() const { return busy_.empty() ? 0 : busy_.back().finish; }

 private:
  struct Interval {
    int64_t start, finish;
  };
  std::vector<Interval> busy_;
};

// The schedule a given assignment and order make in the model (heuristic "measured"): task t runs
// on processor[t]; each processor runs its tasks in increasing `rank` (ties: topological order),
// each as early as the processor and its predecessors' data allow. For a measured run (rank = a
// grain's measured start) this is the run as the model sees it: what `predict` compares with the
// measured time (the model's error) and with the scheduler's projection (the scheduler's). Fails
// when the order makes a task wait for a successor's result on the same processor.
Result<Schedule> ScheduleOfAssignment(const TaskDag& g, const Machine& m, std::span<const uint32_t> processor,
                                      std::span<const int64_t> rank);

// Data-ready time of task t on processor p given the slots of its (already placed) predecessors:
// max over predecessors of finish + (cost when on another processor).
int64_t DataReadyTime(const TaskDag& g, const std::vector<TaskSlot>& slots, uint32_t t, uint32_t p);

}  // namespace grainscope
