#include "bench/synthetic/random_dag.h"

#include <random>
#include <unordered_set>

namespace grainscope {

Result<TaskDag> GenerateRandomDag(const RandomDagOptions& o) {
  if (o.tasks < 2 || o.span == 0) return InvalidArgument("a random DAG needs at least 2 tasks and a span >= 1");
  const uint64_t possible = static_cast<uint64_t>(o.tasks) * o.span;
  if (o.edges > possible / 2) return InvalidArgument("too many edges for this many tasks and span");
  std::mt19937_64 rng(o.seed);
  DagBuilder b("random");
  for (uint32_t t = 0; t < o.tasks; ++t) b.AddTask(t + 1, 1 + static_cast<int64_t>(rng() % o.max_weight));
  std::unordered_set<uint64_t> seen;
  uint64_t added = 0;
  while (added < o.edges) {
    const uint32_t from = static_cast<uint32_t>(rng() % (o.tasks - 1));
    const uint64_t to = from + 1 + rng() % o.span;
    if (to >= o.tasks || !seen.insert(static_cast<uint64_t>(from) * o.tasks + to).second) continue;
    b.AddEdge(from, static_cast<uint32_t>(to), 1 + static_cast<int64_t>(rng() % o.max_cost));
    ++added;
  }
  return std::move(b).Build();
}

}  // namespace grainscope
