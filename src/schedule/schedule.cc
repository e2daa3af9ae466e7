#include "schedule/schedule.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace grainscope {

int64_t Machine::ExecTime(int64_t weight, uint32_t processor) const {
  if (speeds.empty() || weight == 0) return weight;
  const int64_t t = std::llround(static_cast<double>(weight) / speeds[processor]);
  return std::max<int64_t>(1, t);
}

Status CheckMachine(const Machine& m) {
  if (m.processors == 0) return InvalidArgument("the number of processors must be at least 1");
  if (m.speeds.empty()) return OkStatus();
  if (m.speeds.size() != m.processors) {
    return InvalidArgument(fmt::format("{} processor speeds given for {} processors", m.speeds.size(), m.processors));
  }
  for (double s : m.speeds) {
    if (!(s > 0) || !std::isfinite(s)) return InvalidArgument(fmt::format("processor speed {} is not positive", s));
  }
  return OkStatus();
}

Status ValidateSchedule(const TaskDag& g, const Machine& m, const Schedule& s) {
  if (s.slots.size() != g.size()) {
    return Internal(fmt::format("schedule places {} tasks, the graph has {}", s.slots.size(), g.size()));
  }
  std::vector<std::vector<uint32_t>> on(m.processors);
  int64_t latest = 0;
  for (uint32_t t = 0; t < g.size(); ++t) {
    const TaskSlot& slot = s.slots[t];
    if (slot.processor >= m.processors) return Internal(fmt::format("task {} on processor {}", g.Label(t), slot.processor));
    if (slot.start < 0 || slot.finish - slot.start != m.ExecTime(g.weight[t], slot.processor)) {
      return Internal(fmt::format("task {} runs [{}, {}], expected {} time units", g.Label(t), slot.start,
                                  slot.finish, m.ExecTime(g.weight[t], slot.processor)));
    }
    for (const DagArc& a : g.predecessors(t)) {
      const TaskSlot& from = s.slots[a.task];
      const int64_t ready = from.finish + (from.processor == slot.processor ? 0 : a.cost);
      if (slot.start < ready) {
        return Internal(fmt::format("task {} starts at {} before its input from {} is ready at {}", g.Label(t),
                                    slot.start, g.Label(a.task), ready));
      }
    }
    on[slot.processor].push_back(t);
    latest = std::max(latest, slot.finish);
  }
  for (std::vector<uint32_t>& tasks : on) {
    std::sort(tasks.begin(), tasks.end(), [&](uint32_t a, uint32_t b) {
      const TaskSlot &x = s.slots[a], &y = s.slots[b];
      return x.start != y.start ? x.start < y.start : x.finish < y.finish;
    });
    for (size_t i = 1; i < tasks.size(); ++i) {
      if (s.slots[tasks[i]].start < s.slots[tasks[i - 1]].finish) {
        return Internal(fmt::format("tasks {} and {} overlap on processor {}", g.Label(tasks[i - 1]),
                                    g.Label(tasks[i]), s.slots[tasks[i]].processor));
      }
    }
  }
  if (latest != s.makespan) return Internal(fmt::format("makespan {} but the last task finishes at {}", s.makespan, latest));
  return OkStatus();
}

int64_t SimpleLowerBound(const TaskDag& g, const Machine& m) {
  if (m.identical()) {
    const int64_t p = m.processors;
    return std::max(CriticalPathWithoutCommunication(g), (g.total_weight() + p - 1) / p);
  }
  // With speeds, each task takes at least its shortest execution time on any processor: the
  // longest path of those, and their sum spread over all processors, are both bounds.
  std::vector<int64_t> fastest(g.size()), below(g.size(), 0);
  int64_t work = 0, path = 0;
  for (uint32_t t = 0; t < g.size(); ++t) {
    fastest[t] = m.ExecTime(g.weight[t], 0);
    for (uint32_t p = 1; p < m.processors; ++p) fastest[t] = std::min(fastest[t], m.ExecTime(g.weight[t], p));
    work += fastest[t];
  }
  for (auto it = g.topo_order.rbegin(); it != g.topo_order.rend(); ++it) {
    int64_t next = 0;
    for (const DagArc& a : g.successors(*it)) next = std::max(next, below[a.task]);
    below[*it] = fastest[*it] + next;
    path = std::max(path, below[*it]);
  }
  const int64_t p = m.processors;
  return std::max(path, (work + p - 1) / p);
}

Result<Schedule> ScheduleOfAssignment(const TaskDag& g, const Machine& m, std::span<const uint32_t> processor,
                                      std::span<const int64_t> rank) {
  GS_RETURN_IF_ERROR(CheckMachine(m));
  const uint32_t n = g.size();
  if (processor.size() != n || rank.size() != n)
    return InvalidArgument(fmt::format("an assignment of {} tasks for a graph of {}", processor.size(), n));
  std::vector<uint32_t> topo_position(n);
  for (uint32_t i = 0; i < n; ++i) topo_position[g.topo_order[i]] = i;
  std::vector<uint32_t> order(n);
  for (uint32_t t = 0; t < n; ++t) order[t] = t;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return rank[a] != rank[b] ? rank[a] < rank[b] : topo_position[a] < topo_position[b];
  });
  Schedule s;
  s.heuristic = "measured";
  s.slots.assign(n, TaskSlot{});
  std::vector<bool> placed(n, false);
  std::vector<int64_t> free_at(m.processors, 0);
  for (uint32_t t : order) {
    const uint32_t p = processor[t];
    if (p >= m.processors)
      return InvalidArgument(fmt::format("task {} is on processor {} of {}", g.Label(t), p + 1, m.processors));
    for (const DagArc& a : g.predecessors(t)) {
      if (!placed[a.task]) {
        return FailedPrecondition(fmt::format("task {} runs before its predecessor {} in the given order",
                                              g.Label(t), g.Label(a.task)));
      }
    }
    const int64_t start = std::max(free_at[p], DataReadyTime(g, s.slots, t, p));
    s.slots[t] = TaskSlot{p, start, start + m.ExecTime(g.weight[t], p)};
    free_at[p] = s.slots[t].finish;
    placed[t] = true;
  }
  FinishSchedule(g, m, s);
  return s;
}

void FinishSchedule(const TaskDag& g, const Machine& m, Schedule& s) {
  s.processors = m.processors;
  s.makespan = 0;
  for (const TaskSlot& slot : s.slots) s.makespan = std::max(s.makespan, slot.finish);
  s.lower_bound = std::max(s.lower_bound, SimpleLowerBound(g, m));
  if (s.makespan <= s.lower_bound) s.optimal = true;
}

int64_t ProcessorTimeline::EarliestStart(int64_t ready, int64_t duration, bool insertion) const {
  if (!insertion || busy_.empty()) return std::max(ready, available());
  // Intervals are disjoint and sorted, so finishes are sorted too: skip those ending by `ready`.
  auto it = std::upper_bound(busy_.begin(), busy_.end(), ready,
                             [](int64_t r, const Interval& iv) { return r < iv.finish; });
  int64_t gap_start = it == busy_.begin() ? ready : std::max(ready, std::prev(it)->finish);
  for (; it != busy_.end(); ++it) {
    if (gap_start + duration <= it->start) return gap_start;
    gap_start = std::max(ready, it->finish);
  }
  return gap_start;
}

void ProcessorTimeline::Place(int64_t start, int64_t finish) {
  auto it = std::upper_bound(busy_.begin(), busy_.end(), start,
                             [](int64_t s, const Interval& iv) { return s < iv.start; });
  busy_.insert(it, Interval{start, finish});
}

int64_t DataReadyTime(const TaskDag& g, const std::vector<TaskSlot>& slots, uint32_t t, uint32_t p) {
  int64_t ready = 0;
  for (const DagArc& a : g.predecessors(t)) {
    const TaskSlot& from = slots[a.task];
    ready = std::max(ready, from.finish + (from.processor == p ? 0 : a.cost));
  }
  return ready;
}

}  // namespace grainscope
