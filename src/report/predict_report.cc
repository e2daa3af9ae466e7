// The prediction loop's result (`grainscope predict`): projected run times and speedups for a
// range of processor counts, and the projection error against measured runs.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "report/predict_report.h"
#include "report/svg.h"

namespace grainscope {
namespace {

nlohmann::ordered_json RunJson(const RunComparison& c) {
  nlohmann::ordered_json j;
  j["file"] = c.file;
  j["processors"] = c.processors;
  j["grains"] = c.grains;
  j["measured_ns"] = c.measured_ns;
  j["corrected_ns"] = c.corrected_ns;
  j["projected_ns"] = c.projected_ns;
  j["error"] = c.error;
  j["corrected_error"] = c.corrected_error;
  j["measured_speedup"] = c.measured_speedup;
  j["projected_speedup"] = c.projected_speedup;
  return j;
}

std::string PredictionJson(const Prediction& p, const RenderOptions& o) {
  nlohmann::ordered_json j;
  j["heuristic"] = p.heuristic;
  j["tasks"] = p.tasks;
  j["edges"] = p.edges;
  j["work_ns"] = p.work_ns;
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const SpeedupPoint& s : p.curve) {
    curve.push_back(
        {{"processors", s.processors}, {"makespan_ns", s.makespan}, {"speedup", s.speedup}, {"optimal", s.optimal}});
  }
  j["projections"] = std::move(curve);
  j["measured"] = RunJson(p.measured);
  nlohmann::ordered_json actual = nlohmann::ordered_json::array();
  for (const RunComparison& c : p.actual) actual.push_back(RunJson(c));
  j["actual"] = std::move(actual);
  return FinishJson(j, o.notes);
}

std::string Signed(double fraction) { return fmt::format("{:+.1f} %", 100.0 * fraction); }

std::string PredictionText(const Prediction& p, const RenderOptions& o) {
  std::string out = fmt::format("Projection: {} ({} grains, {} arcs; work {}; heuristic {})\n", o.source, p.tasks,
                                p.edges, FormatDuration(p.work_ns), p.heuristic);
  out += fmt::format("\n  {:>10} {:>14} {:>8}\n", "processors", "run time", "speedup");
  for (const SpeedupPoint& s : p.curve) {
    out += fmt::format("  {:>10} {:>14} {:>8.2f}{}\n", s.processors, FormatDuration(s.makespan), s.speedup,
                       s.optimal ? "  optimal" : "");
  }
  out += "\n  Projection against measured runs (measured = EPA total time from the origin; corrected = from\n"
         "  the first grain's start, the time the projection models):\n";
  out += fmt::format("  {:>10} {:>14} {:>14} {:>14} {:>9} {:>10}  {}\n", "processors", "measured", "corrected",
                     "projected", "error", "corrected", "run");
  auto row = [&](const RunComparison& c, std::string_view role) {
    out += fmt::format("  {:>10} {:>14} {:>14} {:>14} {:>9} {:>10}  {}{}\n", c.processors, FormatDuration(c.measured_ns),
                       FormatDuration(c.corrected_ns), FormatDuration(c.projected_ns), Signed(c.error),
                       Signed(c.corrected_error), c.file, role);
    if (c.grains != p.tasks) {
      out += fmt::format("  {:>10} note: {} grains in this run, {} in the measured one: not the same program?\n", "",
                         c.grains, p.tasks);
    }
  };
  row(p.measured, " (the measured run)");
  for (const RunComparison& c : p.actual) row(c, "");
  return out;
}

}  // namespace

Result<std::string> RenderPrediction(const Prediction& p, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return PredictionText(p, o);
    case OutputFormat::kJson: return PredictionJson(p, o);
    case OutputFormat::kSvg: return SpeedupSvg(p, "Projected speedup: " + o.source);
    default:
      return InvalidArgument(fmt::format("predict has no {} output (use text, json or svg)", OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
