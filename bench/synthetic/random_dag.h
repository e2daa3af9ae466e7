// Random task graphs for scheduler benchmarks: deterministic for a given seed (std::mt19937's
// sequence is fixed by the standard).
#pragma once

#include <cstdint>

#include "base/status.h"
#include "schedule/dag.h"

namespace grainscope {

struct RandomDagOptions {
  uint32_t tasks = 10'000;
  uint64_t edges = 50'000;   // distinct edges, each from a lower to a higher task index
  uint32_t span = 500;       // an edge i -> j has j - i <= span: keeps the graph deep
  int64_t max_weight = 100;  // weights and costs uniform in [1, max]
  int64_t max_cost = 100;
  uint32_t seed = 1;
};

Result<TaskDag> GenerateRandomDag(const RandomDagOptions& o);

}  // namespace grainscope
