#include "schedule/predict.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "analysis/profile/profile.h"
#include "analysis/taskgraph/taskgraph.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

double Ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

// Where and when each grain of a run ran: task-graph node id -> (processor, start).
using Assignment = std::map<uint32_t, std::pair<uint32_t, int64_t>>;

// The replay of `assignment` on `dag` (whose task i is `tg.nodes[i]`): every task must be in it.
Result<TimeNs> Replay(const TaskGraph& tg, const TaskDag& dag, const Assignment& assignment, uint32_t processors,
                      const std::string& file) {
  std::vector<uint32_t> processor(tg.nodes.size());
  std::vector<int64_t> start(tg.nodes.size());
  for (size_t i = 0; i < tg.nodes.size(); ++i) {
    const auto it = assignment.find(tg.nodes[i].id);
    if (it == assignment.end()) return NotFound(fmt::format("{}: grain node {} did not run", file, tg.nodes[i].id));
    std::tie(processor[i], start[i]) = it->second;
  }
  Result<Schedule> s = ScheduleOfAssignment(dag, Machine{std::max<uint32_t>(1, processors)}, processor, start);
  if (!s.ok()) return FailedPrecondition(fmt::format("{}: {}", file, s.status().message()));
  return s->makespan;
}

struct Measured {
  RunComparison comparison;
  Assignment assignment;
  TaskGraph tg;  // the run's task graph and its DAG (task i is tg.nodes[i]), built once
  TaskDag dag;
};

// Measured side of a comparison: processors that ran grains, the EPA times, and the run's own
// schedule replayed in the model (its grains on their processors, in the order they started).
Result<Measured> Measure(const NamedTrace& run) {
  GS_ASSIGN_OR_RETURN(ExecutionProfile p, ComputeProfile(*run.trace));
  Measured m;
  GS_ASSIGN_OR_RETURN(m.tg, BuildTaskGraph(*run.trace));
  GS_ASSIGN_OR_RETURN(m.dag, DagFromTaskGraph(*run.trace, m.tg, run.file));
  const TaskGraph& tg = m.tg;
  RunComparison& c = m.comparison;
  c.file = run.file;
  std::map<uint32_t, uint32_t> processor_of_location;
  for (const TaskNode& n : tg.nodes) processor_of_location.emplace(n.grain.location.value, 0);
  uint32_t next = 0;
  for (auto& [location, processor] : processor_of_location) processor = next++;
  c.processors = next;
  c.grains = static_cast<uint32_t>(tg.nodes.size());
  c.measured_ns = p.total_ns;
  c.corrected_ns = p.last_stop_ns - p.first_start_ns;
  c.measured_speedup = p.speedup;
  for (const TaskNode& n : tg.nodes)
    m.assignment[n.id] = {processor_of_location.at(n.grain.location.value), n.grain.start};
  GS_ASSIGN_OR_RETURN(c.replayed_ns, Replay(tg, m.dag, m.assignment, c.processors, run.file));
  c.model_error = Ratio(c.replayed_ns - c.corrected_ns, c.corrected_ns);
  return m;
}

}  // namespace

Result<Prediction> Predict(const NamedTrace& measured, const std::vector<NamedTrace>& actual, Heuristic h,
                           uint32_t from, uint32_t to, const PortfolioOptions& o) {
  GS_ASSIGN_OR_RETURN(Measured m, Measure(measured));
  const TaskGraph& tg = m.tg;
  const TaskDag& dag = m.dag;
  Prediction out;
  out.heuristic = std::string(HeuristicName(h));
  out.work_ns = dag.total_weight();
  out.tasks = dag.size();
  out.edges = dag.edge_count();
  GS_ASSIGN_OR_RETURN(out.curve, SpeedupCurve(dag, h, from, to, o));

  auto project = [&](RunComparison& c) -> Status {
    if (c.processors == 0) return FailedPrecondition(fmt::format("{}: no processor ran a grain", c.file));
    if (c.processors >= from && c.processors <= to) {
      c.projected_ns = out.curve[c.processors - from].makespan;
    } else {
      GS_ASSIGN_OR_RETURN(std::vector<SpeedupPoint> one, SpeedupCurve(dag, h, c.processors, c.processors, o));
      c.projected_ns = one[0].makespan;
    }
    c.error = Ratio(c.projected_ns - c.measured_ns, c.measured_ns);
    c.corrected_error = Ratio(c.projected_ns - c.corrected_ns, c.corrected_ns);
    c.projected_speedup = Ratio(out.work_ns, c.projected_ns);
    c.times_error = Ratio(c.replayed_with_measured_ns - c.replayed_ns, c.replayed_ns);
    c.scheduler_error = Ratio(c.projected_ns - c.replayed_with_measured_ns, c.replayed_with_measured_ns);
    return OkStatus();
  };
  out.measured = m.comparison;
  out.measured.replayed_with_measured_ns = out.measured.replayed_ns;
  GS_RETURN_IF_ERROR(project(out.measured));
  for (const NamedTrace& run : actual) {
    GS_ASSIGN_OR_RETURN(Measured a, Measure(run));
    RunComparison& c = a.comparison;
    // The other run's assignment and order with this run's grain times and arc costs: possible
    // when both number their grains by grain id and ran the same ones.
    c.replayed_with_measured_ns = c.replayed_ns;
    if (tg.ids_from_grain_ids && a.tg.ids_from_grain_ids && a.assignment.size() == tg.nodes.size()) {
      Result<TimeNs> r = Replay(tg, dag, a.assignment, c.processors, run.file);
      if (r.ok()) {
        c.replayed_with_measured_ns = *r;
        c.times_compared = true;
      }
    }
    GS_RETURN_IF_ERROR(project(c));
    out.actual.push_back(std::move(c));
  }
  out.measured.times_compared = true;
  return out;
}

}  // namespace grainscope
