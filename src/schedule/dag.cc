#include "schedule/dag.h"

#include <algorithm>

#include <fmt/format.h>

namespace grainscope {

int64_t TaskDag::total_weight() const {
  int64_t sum = 0;
  for (int64_t w : weight) sum += w;
  return sum;
}

std::string TaskDag::Label(uint32_t t) const {
  return name[t].empty() ? std::to_string(id[t]) : name[t];
}

uint32_t DagBuilder::AddTask(int64_t id, int64_t weight, std::string name) {
  dag_.id.push_back(id);
  dag_.weight.push_back(weight);
  dag_.name.push_back(std::move(name));
  return task_count() - 1;
}

namespace {

// Offsets + arcs from (owner, arc) pairs already sorted by owner then neighbour.
void FillCsr(uint32_t n, const std::vector<std::pair<uint32_t, DagArc>>& sorted, std::vector<uint32_t>& begin,
             std::vector<DagArc>& arcs) {
  begin.assign(n + 1, 0);
  arcs.clear();
  arcs.reserve(sorted.size());
  for (const auto& [owner, arc] : sorted) {
    begin[owner + 1]++;
    arcs.push_back(arc);
  }
  for (uint32_t t = 0; t < n; ++t) begin[t + 1] += begin[t];
}

// One cycle among the tasks Kahn's algorithm could not order: walk predecessors that are also
// unordered until a task repeats.
std::string DescribeCycle(const TaskDag& g, const std::vector<uint32_t>& indegree,
                          const std::function<std::string(uint32_t)>& describe) {
  uint32_t start = 0;
  while (indegree[start] == 0) ++start;
  std::vector<int32_t> seen_at(g.size(), -1);
  std::vector<uint32_t> walk;
  uint32_t t = start;
  while (seen_at[t] < 0) {
    seen_at[t] = static_cast<int32_t>(walk.size());
    walk.push_back(t);
    for (const DagArc& a : g.predecessors(t)) {
      if (indegree[a.task] > 0) {
        t = a.task;
        break;
      }
    }
  }
  // walk[seen_at[t]..] is the cycle, traversed against the edges: print it along them.
  std::vector<uint32_t> cycle(walk.begin() + seen_at[t], walk.end());
  std::reverse(cycle.begin(), cycle.end());
  std::rotate(cycle.begin(), std::min_element(cycle.begin(), cycle.end()), cycle.end());  // a stable start
  std::string out;
  for (uint32_t c : cycle) out += describe(c) + " -> ";
  return out + describe(cycle.front());
}

// Kahn's algorithm with a min-heap: the smallest ready index first, so the order is the input
// order whenever that order is topological. Tasks on a cycle keep a nonzero `indegree` and are
// left out of g.topo_order.
void TopologicalOrder(TaskDag& g, uint32_t n, std::vector<uint32_t>& indegree) {
  for (uint32_t t = 0; t < n; ++t) indegree[t] = g.pred_begin[t + 1] - g.pred_begin[t];
  std::vector<uint32_t> heap;
  for (uint32_t t = 0; t < n; ++t)
    if (indegree[t] == 0) heap.push_back(t);
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  g.topo_order.reserve(n);
  while (!heap.empty()) {
    std::pop_heap(heap.begin(), heap.end(), std::greater<>());
    const uint32_t t = heap.back();
    heap.pop_back();
    g.topo_order.push_back(t);
    for (const DagArc& a : g.successors(t)) {
      if (--indegree[a.task] == 0) {
        heap.push_back(a.task);
        std::push_heap(heap.begin(), heap.end(), std::greater<>());
      }
    }
  }
}

}  // namespace

Result<TaskDag> DagBuilder::Build() && {
  const uint32_t n = task_count();
  TaskDag& g = dag_;
  // Schedules add up times: keep every sum of weights and costs far from overflowing int64.
  constexpr int64_t kMaxTotal = int64_t{1} << 60;
  int64_t total = 0;
  bool too_large = false;
  for (int64_t w : g.weight) too_large |= __builtin_add_overflow(total, w, &total) || total > kMaxTotal;
  for (const RawEdge& e : edges_) too_large |= __builtin_add_overflow(total, e.cost, &total) || total > kMaxTotal;
  if (too_large) {
    return FailedPrecondition(fmt::format("{}: the task times and communication costs add up to more than 2^60 "
                                          "time units: too large to schedule",
                                          source_));
  }
  for (const RawEdge& e : edges_) {
    if (e.from == e.to) {
      return FailedPrecondition(fmt::format("{}: task {} depends on itself (an edge {} -> {}): the task graph must "
                                            "be acyclic{}",
                                            source_, Describe(g, e.from), g.Label(e.from), g.Label(e.to), hint_));
    }
  }
  std::stable_sort(edges_.begin(), edges_.end(), [](const RawEdge& a, const RawEdge& b) {
    return a.from != b.from ? a.from < b.from : a.to < b.to;
  });
  std::vector<std::pair<uint32_t, DagArc>> out, in;
  for (const RawEdge& e : edges_) {
    if (!out.empty() && out.back().first == e.from && out.back().second.task == e.to) {
      out.back().second.cost += e.cost;  // repeated edge: costs add up (see dag.h)
      ++g.merged_edges;
      continue;
    }
    out.push_back({e.from, DagArc{e.to, e.cost}});
  }
  for (const auto& [from, arc] : out) in.push_back({arc.task, DagArc{from, arc.cost}});
  std::stable_sort(in.begin(), in.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : a.second.task < b.second.task;
  });
  FillCsr(n, out, g.succ_begin, g.succ);
  FillCsr(n, in, g.pred_begin, g.pred);

  std::vector<uint32_t> indegree(n);
  TopologicalOrder(g, n, indegree);
  if (g.topo_order.size() != n) {
    return FailedPrecondition(fmt::format("{}: the task graph has a cycle ({}): a schedule needs an acyclic graph{}",
                                          source_,
                                          DescribeCycle(g, indegree, [&](uint32_t t) { return Describe(g, t); }),
                                          hint_));
  }
  return std::move(g);
}

std::vector<int64_t> StaticBottomLevels(const TaskDag& g) {
  std::vector<int64_t> level(g.size(), 0);
  for (auto it = g.topo_order.rbegin(); it != g.topo_order.rend(); ++it) {
    int64_t below = 0;
    for (const DagArc& a : g.successors(*it)) below = std::max(below, level[a.task]);
    level[*it] = g.weight[*it] + below;
  }
  return level;
}

std::vector<int64_t> BottomLevels(const TaskDag& g) {
  std::vector<int64_t> level(g.size(), 0);
  for (auto it = g.topo_order.rbegin(); it != g.topo_order.rend(); ++it) {
    int64_t below = 0;
    for (const DagArc& a : g.successors(*it)) below = std::max(below, a.cost + level[a.task]);
    level[*it] = g.weight[*it] + below;
  }
  return level;
}

std::vector<int64_t> TopLevels(const TaskDag& g) {
  std::vector<int64_t> level(g.size(), 0);
  for (uint32_t t : g.topo_order) {
    int64_t above = 0;
    for (const DagArc& a : g.predecessors(t)) above = std::max(above, level[a.task] + g.weight[a.task] + a.cost);
    level[t] = above;
  }
  return level;
}

int64_t CriticalPathWithoutCommunication(const TaskDag& g) {
  int64_t longest = 0;
  for (int64_t l : StaticBottomLevels(g)) longest = std::max(longest, l);
  return longest;
}

}  // namespace grainscope
