#include "schedule/predict.h"

#include <set>

#include <fmt/format.h>

#include "analysis/profile/profile.h"
#include "analysis/taskgraph/taskgraph.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

double Ratio(int64_t a, int64_t b) { return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0; }

// Measured side of a comparison: processors that ran grains, and the EPA times.
Result<RunComparison> Measure(const NamedTrace& run) {
  GS_ASSIGN_OR_RETURN(ExecutionProfile p, ComputeProfile(*run.trace));
  GS_ASSIGN_OR_RETURN(TaskGraph tg, BuildTaskGraph(*run.trace));
  RunComparison c;
  c.file = run.file;
  std::set<uint32_t> busy;
  for (const TaskNode& n : tg.nodes) busy.insert(n.grain.location.value);
  c.processors = static_cast<uint32_t>(busy.size());
  c.grains = static_cast<uint32_t>(tg.nodes.size());
  c.measured_ns = p.total_ns;
  c.corrected_ns = p.last_stop_ns - p.first_start_ns;
  c.measured_speedup = p.speedup;
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
