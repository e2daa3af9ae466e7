// List scheduling heuristics: HLFET, MCP, HEFT (one priority order each, scheduled by
// ListScheduleByRank) and ETF (which picks task and processor together).
#include <algorithm>
#include <numeric>
#include <queue>

#include "schedule/heuristics.h"

namespace grainscope {
namespace {

struct Placement {
  bool insertion = false;        // may use idle gaps between already placed tasks
  bool earliest_finish = false;  // choose the processor by finish time (else by start time)
};

// Position of each task in the topological order: the last tie-break of every priority.
std::vector<uint32_t> TopoPosition(const TaskDag& g) {
  std::vector<uint32_t> pos(g.size());
  for (uint32_t i = 0; i < g.size(); ++i) pos[g.topo_order[i]] = i;
  return pos;
}

// Ranks (0 = scheduled first) from a strict weak "goes before" order, ties by topological position.
template <typename Before>
std::vector<uint32_t> RankBy(const TaskDag& g, Before before) {
  const std::vector<uint32_t> pos = TopoPosition(g);
  std::vector<uint32_t> order(g.size());
  std::iota(order.begin(), order.end(), 0u);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (before(a, b)) return true;
    if (before(b, a)) return false;
    return pos[a] < pos[b];
  });
  std::vector<uint32_t> rank(g.size());
  for (uint32_t i = 0; i < g.size(); ++i) rank[order[i]] = i;
  return rank;
}

// Repeatedly takes the ready task of lowest rank (a task is ready when all its predecessors are
// placed, so any priority order gives a valid schedule) and places it on the best processor.
Schedule ListScheduleByRank(const TaskDag& g, const Machine& m, const std::vector<uint32_t>& rank,
                            Placement how, std::string_view name) {
  Schedule s;
  s.heuristic = std::string(name);
  s.slots.assign(g.size(), TaskSlot{});
  std::vector<ProcessorTimeline> timeline(m.processors);
  std::vector<uint32_t> waiting(g.size());
  using Entry = std::pair<uint32_t, uint32_t>;  // (rank, task)
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> ready;
  for (uint32_t t = 0; t < g.size(); ++t) {
    waiting[t] = static_cast<uint32_t>(g.predecessors(t).size());
    if (waiting[t] == 0) ready.push({rank[t], t});
  }
  while (!ready.empty()) {
    const uint32_t t = ready.top().second;
    ready.pop();
    TaskSlot best{0, INT64_MAX, INT64_MAX};
    for (uint32_t p = 0; p < m.processors; ++p) {
      const int64_t exec = m.ExecTime(g.weight[t], p);
      const int64_t start = timeline[p].EarliestStart(DataReadyTime(g, s.slots, t, p), exec, how.insertion);
      const int64_t finish = start + exec;
      const bool better = how.earliest_finish
                              ? (finish < best.finish || (finish == best.finish && start < best.start))
                              : (start < best.start || (start == best.start && finish < best.finish));
      if (better) best = TaskSlot{p, start, finish};
    }
    s.slots[t] = best;
    timeline[best.processor].Place(best.start, best.finish);
    for (const DagArc& a : g.successors(t))
      if (--waiting[a.task] == 0) ready.push({rank[a.task], a.task});
  }
  FinishSchedule(g, m, s);
  return s;
}

std::vector<int64_t> MeanExecTimes(const TaskDag& g, const Machine& m) {
  std::vector<int64_t> mean(g.size());
  for (uint32_t t = 0; t < g.size(); ++t) {
    if (m.identical()) {
      mean[t] = g.weight[t];
      continue;
    }
    int64_t sum = 0;
    for (uint32_t p = 0; p < m.processors; ++p) sum += m.ExecTime(g.weight[t], p);
    mean[t] = sum / m.processors;  // integer mean: ranks only order tasks
  }
  return mean;
}

}  // namespace

Schedule ScheduleHlfet(const TaskDag& g, const Machine& m) {
  const std::vector<int64_t> level = StaticBottomLevels(g);
  const std::vector<uint32_t> rank = RankBy(g, [&](uint32_t a, uint32_t b) { return level[a] > level[b]; });
  return ListScheduleByRank(g, m, rank, Placement{false, false}, "hlfet");
}

Schedule ScheduleMcp(const TaskDag& g, const Machine& m) {
  const std::vector<int64_t> blevel = BottomLevels(g);
  const int64_t cp = blevel.empty() ? 0 : *std::max_element(blevel.begin(), blevel.end());
  std::vector<std::vector<int64_t>> key(g.size());
  for (uint32_t t = 0; t < g.size(); ++t) {
    std::vector<int64_t>& k = key[t];
    for (const DagArc& a : g.successors(t)) k.push_back(cp - blevel[a.task]);
    std::sort(k.begin(), k.end());
    k.insert(k.begin(), cp - blevel[t]);  // the task's own ALAP time first
  }
  const std::vector<uint32_t> rank = RankBy(g, [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
  return ListScheduleByRank(g, m, rank, Placement{true, false}, "mcp");
}

Schedule ScheduleHeft(const TaskDag& g, const Machine& m) {
  const std::vector<int64_t> mean = MeanExecTimes(g, m);
  std::vector<int64_t> upward(g.size(), 0);
  for (auto it = g.topo_order.rbegin(); it != g.topo_order.rend(); ++it) {
    int64_t below = 0;
    for (const DagArc& a : g.successors(*it)) below = std::max(below, a.cost + upward[a.task]);
    upward[*it] = mean[*it] + below;
  }
  const std::vector<uint32_t> rank = RankBy(g, [&](uint32_t a, uint32_t b) { return upward[a] > upward[b]; });
  return ListScheduleByRank(g, m, rank, Placement{true, true}, "heft");
}

Schedule ScheduleEtf(const TaskDag& g, const Machine& m) {
  const std::vector<int64_t> level = StaticBottomLevels(g);
  const std::vector<uint32_t> pos = TopoPosition(g);
  Schedule s;
  s.heuristic = "etf";
  s.slots.assign(g.size(), TaskSlot{});
  std::vector<int64_t> avail(m.processors, 0);
  std::vector<uint32_t> waiting(g.size());
  // Ready tasks with their data-ready time on each processor (fixed once the task is ready).
  std::vector<uint32_t> ready;
  std::vector<std::vector<int64_t>> drt(g.size());
  auto make_ready = [&](uint32_t t) {
    ready.push_back(t);
    drt[t].resize(m.processors);
    for (uint32_t p = 0; p < m.processors; ++p) drt[t][p] = DataReadyTime(g, s.slots, t, p);
  };
  for (uint32_t t = 0; t < g.size(); ++t) {
    waiting[t] = static_cast<uint32_t>(g.predecessors(t).size());
    if (waiting[t] == 0) make_ready(t);
  }
  while (!ready.empty()) {
    size_t best_i = 0;
    TaskSlot best{0, INT64_MAX, INT64_MAX};
    for (size_t i = 0; i < ready.size(); ++i) {
      const uint32_t t = ready[i];
      for (uint32_t p = 0; p < m.processors; ++p) {
        const int64_t start = std::max(avail[p], drt[t][p]);
        if (start > best.start) continue;
        const uint32_t b = ready[best_i];
        const bool better = start < best.start || level[t] > level[b] ||
                            (level[t] == level[b] && (pos[t] < pos[b] || (t == b && p < best.processor)));
        if (best.start == INT64_MAX || better) {
          best_i = i;
          best = TaskSlot{p, start, start + m.ExecTime(g.weight[t], p)};
        }
      }
    }
    const uint32_t t = ready[best_i];
    ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(best_i));
    s.slots[t] = best;
    avail[best.processor] = best.finish;
    std::vector<int64_t>().swap(drt[t]);
    for (const DagArc& a : g.successors(t))
      if (--waiting[a.task] == 0) make_ready(a.task);
  }
  FinishSchedule(g, m, s);
  return s;
}

}  // namespace grainscope
