// The branch-and-bound search of exact.h: depth first, one task appended per level, undo on
// return.
#include "schedule/exact.h"

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "schedule/portfolio.h"

namespace grainscope {
namespace {

struct Candidate {
  uint32_t task, processor;
  int64_t start, finish;
};

class BranchAndBound {
 public:
  BranchAndBound(const TaskDag& g, const Machine& m, const ExactOptions& o)
      : g_(g), m_(m), o_(o), level_(StaticBottomLevels(g)), equivalent_before_(g.size(), -1) {
    FindEquivalentTasks();
    slot_.assign(g.size(), TaskSlot{});
    placed_.assign(g.size(), false);
    avail_.assign(m.processors, 0);
    est_.assign(g.size(), 0);
    waiting_.resize(g.size());
    for (uint32_t t = 0; t < g.size(); ++t) {
      waiting_[t] = static_cast<uint32_t>(g.predecessors(t).size());
      if (waiting_[t] == 0) ready_.push_back(t);
    }
    remaining_work_ = g.total_weight();
  }

  Schedule Run() {
    root_bound_ = RootLowerBound(g_, m_.processors);
    if (o_.initial) {
      best_ = o_.initial->slots;
      upper_ = o_.initial->makespan;
    }
    started_ = std::chrono::steady_clock::now();
    if (upper_ > root_bound_) Search();
    Schedule s;
    s.heuristic = "exact";
    s.slots = best_;
    s.search_nodes = nodes_;
    s.lower_bound = root_bound_;
    FinishSchedule(g_, m_, s);
    if (!aborted_) {
      s.optimal = true;
      s.lower_bound = s.makespan;
    }
    return s;
  }

 private:
  // Tasks with equal weight and identical predecessor and successor arcs are interchangeable:
  // each one may only be appended after the previous one of its class.
  void FindEquivalentTasks() {
    std::vector<uint32_t> order(g_.size());
    for (uint32_t t = 0; t < g_.size(); ++t) order[t] = t;
    auto same = [&](uint32_t a, uint32_t b) {
      auto eq = [](std::span<const DagArc> x, std::span<const DagArc> y) {
        return std::equal(x.begin(), x.end(), y.begin(), y.end(),
                          [](const DagArc& p, const DagArc& q) { return p.task == q.task && p.cost == q.cost; });
      };
      return g_.weight[a] == g_.weight[b] && eq(g_.predecessors(a), g_.predecessors(b)) &&
             eq(g_.successors(a), g_.successors(b));
    };
    // Quadratic, but only over tasks with the same weight and degree, which are few.
    for (uint32_t b = 0; b < g_.size(); ++b) {
      for (uint32_t a = b; a-- > 0;) {
        if (same(a, b)) {
          equivalent_before_[b] = static_cast<int32_t>(a);
          break;
        }
      }
    }
  }

  bool OutOfBudget() {
    if (o_.node_limit != 0 && nodes_ >= o_.node_limit) return true;
    if (o_.time_limit_s > 0 && (nodes_ & 1023) == 0) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
      if (elapsed > o_.time_limit_s) return true;
    }
    return false;
  }

  // (start, task) strictly after the last appended task's: the start-order rule.
  bool AfterLast(int64_t start, uint32_t task) const {
    return last_task_ < 0 || start > last_start_ || (start == last_start_ && task > static_cast<uint32_t>(last_task_));
  }

  // Lower bound on the makespan of every completion of the current partial schedule. Fills est_
  // (earliest possible start of each unplaced task); `ready_est` holds it for the ready tasks.
  int64_t Bound() {
    const int64_t floor = std::max<int64_t>(last_start_, 0);
    int64_t path = makespan_, earliest_next = INT64_MAX;
    for (uint32_t t : g_.topo_order) {
      if (placed_[t]) continue;
      int64_t e = floor;
      if (waiting_[t] == 0) {
        e = std::max(e, ready_est_[t]);
      } else {
        for (const DagArc& a : g_.predecessors(t))
          e = std::max(e, placed_[a.task] ? slot_[a.task].finish : est_[a.task] + g_.weight[a.task]);
      }
      est_[t] = e;
      path = std::max(path, e + level_[t]);
      earliest_next = std::min(earliest_next, e);
    }
    if (earliest_next == INT64_MAX) return path;
    int64_t occupied = remaining_work_;
    for (uint32_t p = 0; p < m_.processors; ++p) occupied += std::max(avail_[p], earliest_next);
    const int64_t procs = m_.processors;
    return std::max(path, (occupied + procs - 1) / procs);
  }

  void Search() {
    if (ready_.empty()) {  // every task placed
      if (makespan_ < upper_) {
        upper_ = makespan_;
        best_ = slot_;
      }
      return;
    }
    ++nodes_;
    if (OutOfBudget()) {
      aborted_ = true;
      return;
    }
    const uint32_t open = std::min(used_ + 1, m_.processors);  // used processors + one empty one
    std::vector<Candidate> children;
    for (uint32_t t : ready_) {
      int64_t est = INT64_MAX;
      const int32_t before = equivalent_before_[t];
      const bool allowed = before < 0 || placed_[before];
      for (uint32_t p = 0; p < open; ++p) {
        const int64_t start = std::max(avail_[p], DataReadyTime(g_, slot_, t, p));
        est = std::min(est, start);
        const int64_t finish = start + g_.weight[t];
        if (allowed && AfterLast(start, t) && finish + level_[t] - g_.weight[t] < upper_)
          children.push_back({t, p, start, finish});
      }
      ready_est_[t] = est;
    }
    if (children.empty() || Bound() >= upper_) return;
    std::sort(children.begin(), children.end(), [&](const Candidate& a, const Candidate& b) {
      if (a.start != b.start) return a.start < b.start;
      if (level_[a.task] != level_[b.task]) return level_[a.task] > level_[b.task];
      return a.task != b.task ? a.task < b.task : a.processor < b.processor;
    });
    for (const Candidate& c : children) {
      if (c.finish + level_[c.task] - g_.weight[c.task] >= upper_) continue;  // upper_ may have dropped
      Descend(c);
      if (aborted_ || upper_ <= root_bound_) return;
    }
  }

  void Descend(const Candidate& c) {
    const int64_t saved_avail = avail_[c.processor], saved_start = last_start_, saved_makespan = makespan_;
    const int32_t saved_task = last_task_;
    const uint32_t saved_used = used_;
    slot_[c.task] = TaskSlot{c.processor, c.start, c.finish};
    placed_[c.task] = true;
    avail_[c.processor] = c.finish;
    if (c.processor == used_) ++used_;
    last_start_ = c.start;
    last_task_ = static_cast<int32_t>(c.task);
    makespan_ = std::max(makespan_, c.finish);
    remaining_work_ -= g_.weight[c.task];
    const size_t ready_size = ready_.size();
    auto at = std::find(ready_.begin(), ready_.end(), c.task);
    const size_t at_index = static_cast<size_t>(at - ready_.begin());
    ready_.erase(at);
    for (const DagArc& a : g_.successors(c.task))
      if (--waiting_[a.task] == 0) ready_.push_back(a.task);

    Search();

    for (const DagArc& a : g_.successors(c.task)) ++waiting_[a.task];
    ready_.resize(ready_size - 1);
    ready_.insert(ready_.begin() + static_cast<std::ptrdiff_t>(at_index), c.task);
    remaining_work_ += g_.weight[c.task];
    makespan_ = saved_makespan;
    last_task_ = saved_task;
    last_start_ = saved_start;
    used_ = saved_used;
    avail_[c.processor] = saved_avail;
    placed_[c.task] = false;
  }

  const TaskDag& g_;
  const Machine& m_;
  const ExactOptions& o_;
  std::vector<int64_t> level_;  // static b-level
  std::vector<int32_t> equivalent_before_;

  std::vector<TaskSlot> slot_;
  std::vector<bool> placed_;
  std::vector<int64_t> avail_, est_;
  std::vector<int64_t> ready_est_ = std::vector<int64_t>(g_.size(), 0);
  std::vector<uint32_t> waiting_, ready_;
  uint32_t used_ = 0;
  int64_t last_start_ = -1;
  int32_t last_task_ = -1;
  int64_t makespan_ = 0, remaining_work_ = 0;

  int64_t root_bound_ = 0, upper_ = INT64_MAX;
  std::vector<TaskSlot> best_;
  uint64_t nodes_ = 0;
  bool aborted_ = false;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace

Result<Schedule> ScheduleExact(const TaskDag& g, const Machine& m, const ExactOptions& o) {
  if (!m.identical()) {
    return FailedPrecondition("the exact search handles identical processors only (no --speeds)");
  }
  if (o.initial && o.initial->slots.size() != g.size()) return Internal("initial schedule of another graph");
  if (!o.initial) {  // the search needs a complete schedule to fall back on when it stops early
    ExactOptions seeded = o;
    seeded.initial = BestHeuristicSchedule(g, m);
    return BranchAndBound(g, m, seeded).Run();
  }
  return BranchAndBound(g, m, o).Run();
}

}  // namespace grainscope
