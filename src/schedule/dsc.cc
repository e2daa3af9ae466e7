// DSC, dominant sequence clustering (Yang & Gerasoulis, IEEE TPDS 5(9), 1994), then a mapping
// of its clusters onto the machine's P processors (at the end of this file).
//
// Clustering, on unboundedly many virtual processors ("clusters"): tasks are examined one at a
// time in priority order tlevel + blevel (the length of the longest path through the task with
// the clustering so far), which follows the dominant sequence. An examined task is appended to
// the end of a cluster, so a cluster runs its tasks in examination order. When a task is
// examined it joins the cluster of one of its predecessors if that makes it start strictly
// earlier than alone in a new cluster (zeroing the edges from that cluster's tasks); otherwise
// it opens a new cluster. Only free tasks (all predecessors examined) are examined.
//
// Dominant sequence reduction warranty (DSRW): when a partially free task ny (some predecessors
// examined) has a higher priority than the free task nx about to be examined, nx may not join a
// cluster holding a predecessor of ny if that would end after ny's current start estimate —
// it would delay ny's best start later.
//
// Simplification (documented): a task joins at most one existing cluster (the original can
// merge the clusters of several predecessors); ties pick the cluster created first.
#include <algorithm>
#include <optional>
#include <set>
#include <tuple>

#include "schedule/heuristics.h"

namespace grainscope {
namespace {

struct Clustering {
  std::vector<uint32_t> cluster;  // per task
  std::vector<uint32_t> examined_order;
  uint32_t clusters = 0;
};

class DscClusterer {
 public:
  explicit DscClusterer(const TaskDag& g)
      : g_(g), blevel_(BottomLevels(g)), tlevel_(g.size(), 0), finish_(g.size(), 0), pos_(g.size()),
        unexamined_preds_(g.size()), examined_(g.size(), false) {
    for (uint32_t i = 0; i < g.size(); ++i) pos_[g.topo_order[i]] = i;
    result_.cluster.assign(g.size(), 0);
  }

  Clustering Run() {
    for (uint32_t t = 0; t < g_.size(); ++t) {
      unexamined_preds_[t] = static_cast<uint32_t>(g_.predecessors(t).size());
      if (unexamined_preds_[t] == 0) free_.insert(MakeKey(t));
    }
    while (!free_.empty()) {
      const uint32_t nx = std::get<2>(*free_.begin());
      free_.erase(free_.begin());
      std::optional<uint32_t> ny;
      if (!partial_.empty() && Priority(std::get<2>(*partial_.begin())) > Priority(nx))
        ny = std::get<2>(*partial_.begin());
      Examine(nx, ny);
    }
    return std::move(result_);
  }

 private:
  using Key = std::tuple<int64_t, uint32_t, uint32_t>;  // (-priority, topo position, task)
  Key MakeKey(uint32_t t) const { return {-Priority(t), pos_[t], t}; }
  int64_t Priority(uint32_t t) const { return tlevel_[t] + blevel_[t]; }

  // Start of t when appended to cluster c (examined predecessors only; c may be a new cluster).
  int64_t StartIn(uint32_t t, uint32_t c) const {
    int64_t start = c < cluster_end_.size() ? cluster_end_[c] : 0;
    for (const DagArc& a : g_.predecessors(t)) {
      if (!examined_[a.task]) continue;
      start = std::max(start, finish_[a.task] + (result_.cluster[a.task] == c ? 0 : a.cost));
    }
    return start;
  }

  bool HoldsPredecessorOf(uint32_t c, uint32_t ny) const {
    for (const DagArc& a : g_.predecessors(ny))
      if (examined_[a.task] && result_.cluster[a.task] == c) return true;
    return false;
  }

  void Examine(uint32_t nx, std::optional<uint32_t> ny) {
    const uint32_t fresh = static_cast<uint32_t>(cluster_end_.size());
    uint32_t best_cluster = fresh;
    int64_t best_start = StartIn(nx, fresh);
    std::vector<uint32_t> candidates;
    for (const DagArc& a : g_.predecessors(nx)) candidates.push_back(result_.cluster[a.task]);
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (uint32_t c : candidates) {
      const int64_t start = StartIn(nx, c);
      if (start >= best_start) continue;
      if (ny && start + g_.weight[nx] > tlevel_[*ny] && HoldsPredecessorOf(c, *ny)) continue;  // DSRW
      best_start = start;
      best_cluster = c;
    }
    if (best_cluster == fresh) cluster_end_.push_back(0);
    result_.cluster[nx] = best_cluster;
    tlevel_[nx] = best_start;
    finish_[nx] = best_start + g_.weight[nx];
    cluster_end_[best_cluster] = finish_[nx];
    examined_[nx] = true;
    result_.examined_order.push_back(nx);

    // Successors: their start estimate grows with nx's finish + the (not yet zeroed) edge cost.
    for (const DagArc& a : g_.successors(nx)) {
      const uint32_t s = a.task;
      const bool was_partial = unexamined_preds_[s] < g_.predecessors(s).size();
      if (was_partial) partial_.erase(MakeKey(s));
      tlevel_[s] = std::max(tlevel_[s], finish_[nx] + a.cost);
      if (--unexamined_preds_[s] == 0) {
        free_.insert(MakeKey(s));
      } else {
        partial_.insert(MakeKey(s));
      }
    }
  }

  const TaskDag& g_;
  std::vector<int64_t> blevel_, tlevel_, finish_;
  std::vector<uint32_t> pos_, unexamined_preds_;
  std::vector<bool> examined_;
  std::vector<int64_t> cluster_end_;  // finish of each cluster's last task
  std::set<Key> free_, partial_;
  Clustering result_;
};

}  // namespace

Schedule ScheduleDsc(const TaskDag& g, const Machine& m) {
  const Clustering c = DscClusterer(g).Run();
  const uint32_t clusters = c.examined_order.empty() ? 0 : 1 + *std::max_element(c.cluster.begin(), c.cluster.end());

  // Clusters onto processors while list-scheduling the tasks in examination order (a
  // topological order): a cluster goes, at its first task, to the processor where that task
  // would finish earliest (ties: the processor with less work so far, then the lower index);
  // its later tasks follow it there. Each task starts as early as its inputs and its processor
  // allow, inserted into an idle gap when one fits. (Mapping clusters by total work alone, LPT,
  // ignores when the work is needed and did far worse on graphs without communication.)
  constexpr uint32_t kUnmapped = UINT32_MAX;
  std::vector<uint32_t> processor_of(clusters, kUnmapped);
  std::vector<int64_t> load(m.processors, 0);
  Schedule s;
  s.heuristic = "dsc";
  s.slots.assign(g.size(), TaskSlot{});
  std::vector<ProcessorTimeline> timeline(m.processors);
  auto earliest = [&](uint32_t t, uint32_t p) {
    const int64_t exec = m.ExecTime(g.weight[t], p);
    const int64_t start = timeline[p].EarliestStart(DataReadyTime(g, s.slots, t, p), exec, true);
    return TaskSlot{p, start, start + exec};
  };
  for (uint32_t t : c.examined_order) {
    uint32_t& p = processor_of[c.cluster[t]];
    if (p == kUnmapped) {
      TaskSlot best = earliest(t, 0);
      for (uint32_t q = 1; q < m.processors; ++q) {
        const TaskSlot here = earliest(t, q);
        if (here.finish < best.finish || (here.finish == best.finish && load[q] < load[best.processor])) best = here;
      }
      p = best.processor;
    }
    s.slots[t] = earliest(t, p);
    timeline[p].Place(s.slots[t].start, s.slots[t].finish);
    load[p] += s.slots[t].finish - s.slots[t].start;
  }
  FinishSchedule(g, m, s);
  return s;
}

}  // namespace grainscope
