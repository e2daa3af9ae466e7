#include "schedule/predict.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/profile/profile.h"
#include "analysis/taskgraph/taskgraph.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

double Ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

// Measured side of a comparison: processors that ran grains, the EPA times, and the run's own
// schedule replayed in the model (its grains on their processors, in the order they started).
Result<RunComparison> Measure(const NamedTrace& run) {
  GS_ASSIGN_OR_RETURN(ExecutionProfile p, ComputeProfile(*run.trace));
  GS_ASSIGN_OR_RETURN(TaskGraph tg, BuildTaskGraph(*run.trace));
  GS_ASSIGN_OR_RETURN(TaskDag dag, DagFromTaskGraph(tg, run.file));
  RunComparison c;
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
  // Dag task i is tg.nodes[i] (DagFromTaskGraph adds them in order).
  std::vector<uint32_t> processor(tg.nodes.size());
  std::vector<int64_t> start(tg.nodes.size());
  for (size_t i = 0; i < tg.nodes.size(); ++i) {
    processor[i] = processor_of_location.at(tg.nodes[i].grain.location.value);
    start[i] = tg.nodes[i].grain.start;
  }
  Result<Schedule> replayed = ScheduleOfAssignment(dag, Machine{std::max<uint32_t>(1, c.processors)}, processor, start);
  if (!replayed.ok()) return FailedPrecondition(fmt::format("{}: {}", run.file, replayed.status().message()));
  c.replayed_ns = replayed->makespan;
  c.model_error = Ratio(c.replayed_ns - c.corrected_ns, c.corrected_ns);
  return c;
}

}  // namespace

Result<Prediction> Predict(const NamedTrace& measured, const std::vector<NamedTrace>& actual, Heuristic h,
                           uint32_t from, uint32_t to, const PortfolioOptions& o) {
  GS_ASSIGN_OR_RETURN(TaskGraph tg, BuildTaskGraph(*measured.trace));
  GS_ASSIGN_OR_RETURN(TaskDag dag, DagFromTaskGraph(tg, measured.file));
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
    c.scheduler_error = Ratio(c.projected_ns - c.replayed_ns, c.replayed_ns);
    return OkStatus();
  };
  GS_ASSIGN_OR_RETURN(out.measured, Measure(measured));
  GS_RETURN_IF_ERROR(project(out.measured));
  for (const NamedTrace& run : actual) {
    GS_ASSIGN_OR_RETURN(RunComparison c, Measure(run));
    GS_RETURN_IF_ERROR(project(c));
    out.actual.push_back(std::move(c));
  }
  return out;
}

}  // namespace grainscope
