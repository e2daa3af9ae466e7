// Choosing a heuristic by name, the best-of-all portfolio, and the projected speedup curve.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "schedule/dag.h"
#include "schedule/exact.h"
#include "schedule/heuristics.h"
#include "schedule/schedule.h"

namespace grainscope {

struct PortfolioOptions {
  ExactOptions exact;  // for kExact, and for kBest's improvement step
  // kBest runs the exact search after the heuristics only on graphs this small (its bound costs
  // grow with the graph), with a node limit of best_node_limit.
  uint32_t best_exact_max_tasks = 200;
  uint64_t best_node_limit = 20'000;
};

// The shortest of the HLFET, ETF, MCP, HEFT and DSC schedules; ties go to the earlier in that
// order.
Schedule BestHeuristicSchedule(const TaskDag& g, const Machine& m);

// Runs one heuristic. kBest: BestHeuristicSchedule, then (identical processors, small graph) the
// exact search seeded with it, which either improves it (heuristic "exact") or proves it optimal.
// kExact without an initial schedule in the options is seeded with BestHeuristicSchedule.
Result<Schedule> RunHeuristic(const TaskDag& g, const Machine& m, Heuristic h, const PortfolioOptions& o);

struct SpeedupPoint {
  uint32_t processors = 0;
  int64_t makespan = 0;
  double speedup = 0;  // total work (the one-processor run time) / makespan
  bool optimal = false;     // proven for the model (schedule/schedule.h): makespan = lower_bound or exact search done
  int64_t lower_bound = 0;  // the proven lower bound on any schedule's makespan at this processor count
};

// "N" (meaning 1..N) or "A..B" with 1 <= A <= B <= kMaxProcessors; nullopt for anything else.
inline constexpr uint32_t kMaxProcessors = 100'000;
std::optional<std::pair<uint32_t, uint32_t>> ParseProcessorRange(std::string_view text);

// The projected speedup for every processor count in [from, to] on identical processors.
Result<std::vector<SpeedupPoint>> SpeedupCurve(const TaskDag& g, Heuristic h, uint32_t from, uint32_t to,
                                               const PortfolioOptions& o);

}  // namespace grainscope
