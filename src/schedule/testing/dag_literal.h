// Test helper: a TaskDag from a list of weights and (from, to, cost) edges, task ids 1..n.
#pragma once

#include <tuple>
#include <vector>

#include "schedule/dag.h"

namespace grainscope {

inline TaskDag MakeDag(const std::vector<int64_t>& weights,
                       const std::vector<std::tuple<uint32_t, uint32_t, int64_t>>& edges) {
  DagBuilder b("test");
  for (size_t t = 0; t < weights.size(); ++t) b.AddTask(static_cast<int64_t>(t + 1), weights[t]);
  for (const auto& [from, to, cost] : edges) b.AddEdge(from, to, cost);
  Result<TaskDag> g = std::move(b).Build();
  return std::move(g).value();
}

inline Machine Processors(uint32_t p) {
  Machine m;
  m.processors = p;
  return m;
}

}  // namespace grainscope
