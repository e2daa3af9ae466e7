// Root lower bound of the exact search: energetic reasoning on the graph without communication.
//
// With a makespan M, task u (weight w) can run no earlier than its head r (longest
// computation-only path before it) and must end by M - q, q its tail (longest path after it).
// In any time window [a, b), u must then execute at least
//   min(overlap of [r, r + w) with [a, b), overlap of [M - q - w, M - q) with [a, b))
// (its part in the window when pushed fully left or fully right). If the sum over all tasks
// exceeds P (b - a) for some window, no schedule of length M exists (Lopez/Erschler energetic
// reasoning; Baptiste, Le Pape & Nuijten 2001). Windows: a in {r, M - q - w}, b in {M - q, r + w}.
#include <algorithm>

#include "schedule/exact.h"

namespace grainscope {
namespace {

struct Window {
  std::vector<int64_t> head, tail, weight;
};

int64_t Overlap(int64_t s, int64_t e, int64_t a, int64_t b) { return std::max<int64_t>(0, std::min(e, b) - std::max(s, a)); }

bool EnergeticallyFeasible(const Window& w, uint32_t processors, int64_t makespan) {
  const size_t n = w.weight.size();
  std::vector<int64_t> starts, ends;
  for (size_t u = 0; u < n; ++u) {
    const int64_t deadline = makespan - w.tail[u];
    if (w.head[u] + w.weight[u] > deadline) return false;
    if (w.weight[u] == 0) continue;
    starts.push_back(w.head[u]);
    starts.push_back(deadline - w.weight[u]);
    ends.push_back(deadline);
    ends.push_back(w.head[u] + w.weight[u]);
  }
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  for (int64_t a : starts) {
    for (auto it = std::upper_bound(ends.begin(), ends.end(), a); it != ends.end(); ++it) {
      const int64_t b = *it, capacity = static_cast<int64_t>(processors) * (b - a);
      int64_t energy = 0;
      for (size_t u = 0; u < n && energy <= capacity; ++u) {
        if (w.weight[u] == 0) continue;
        const int64_t deadline = makespan - w.tail[u];
        energy += std::min(Overlap(w.head[u], w.head[u] + w.weight[u], a, b),
                           Overlap(deadline - w.weight[u], deadline, a, b));
      }
      if (energy > capacity) return false;
    }
  }
  return true;
}

}  // namespace

int64_t RootLowerBound(const TaskDag& g, uint32_t processors) {
  const int64_t p = processors;
  int64_t bound = std::max(CriticalPathWithoutCommunication(g), (g.total_weight() + p - 1) / p);
  if (g.size() > kEnergeticMaxTasks || processors >= g.size()) return bound;
  Window w;
  w.weight = g.weight;
  w.head.assign(g.size(), 0);
  for (uint32_t t : g.topo_order)
    for (const DagArc& a : g.predecessors(t)) w.head[t] = std::max(w.head[t], w.head[a.task] + g.weight[a.task]);
  const std::vector<int64_t> level = StaticBottomLevels(g);
  w.tail.resize(g.size());
  for (uint32_t t = 0; t < g.size(); ++t) w.tail[t] = level[t] - g.weight[t];

  // Feasibility only grows with M (windows widen): find the first feasible M by doubling steps,
  // then bisection. M = total work is always feasible (one processor).
  if (EnergeticallyFeasible(w, processors, bound)) return bound;
  int64_t infeasible = bound, step = 1, feasible = g.total_weight();
  while (infeasible + step < feasible) {
    if (EnergeticallyFeasible(w, processors, infeasible + step)) {
      feasible = infeasible + step;
      break;
    }
    infeasible += step;
    step *= 2;
  }
  while (feasible - infeasible > 1) {
    const int64_t mid = infeasible + (feasible - infeasible) / 2;
    (EnergeticallyFeasible(w, processors, mid) ? feasible : infeasible) = mid;
  }
  return feasible;
}

}  // namespace grainscope
