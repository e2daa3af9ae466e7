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
  j["replayed_ns"] = c.replayed_ns;
  j["model_error"] = c.model_error;
  j["replayed_with_measured_times_ns"] = c.replayed_with_measured_ns;
  j["times_compared"] = c.times_compared;
  j["times_error"] = c.times_error;
  j["scheduler_error"] = c.scheduler_error;
  return j;
}

std::string PredictionJson(const Prediction& p, const RenderOptions& o) {
  nlohmann::ordered_json j;
  j["heuristic"] = p.heuristic;
  j["model"] = kPredictionModel;
  j["tasks"] = p.tasks;
  j["edges"] = p.edges;
  j["work_ns"] = p.work_ns;
  nlohmann::ordered_json curve = nlohmann::ordered_json::array();
  for (const SpeedupPoint& s : p.curve) {
    curve.push_back(
        {{"processors", s.processors}, {"makespan_ns", s.makespan}, {"speedup", s.speedup}, {"optimal", s.optimal},
         {"lower_bound_ns", s.lower_bound}});
  }
  j["projections"] = std::move(curve);
  j["measured"] = RunJson(p.measured);
  nlohmann::ordered_json actual = nlohmann::ordered_json::array();
  for (const RunComparison& c : p.actual) actual.push_back(RunJson(c));
  j["actual"] = std::move(actual);
  return FinishJson(j, o.notes);
}

std::string Signed(double fraction) { return fmt::format("{:+.1f} %", 100.0 * fraction); }

// `text` wrapped at `width` columns after `indent`.
std::string Wrapped(std::string_view text, std::string_view indent, size_t width = 100) {
  std::string out, line(indent);
  size_t at = 0;
  while (at < text.size()) {
    size_t end = text.find(' ', at);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view word = text.substr(at, end - at);
    if (line.size() > indent.size() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = std::string(indent);
    }
    if (line.size() > indent.size()) line += ' ';
    line += word;
    at = end + 1;
  }
  return out + line + "\n";
}

std::string PredictionText(const Prediction& p, const RenderOptions& o) {
  std::string out = fmt::format("Projection: {} ({} grains, {} arcs; work {}; heuristic {})\n", o.source, p.tasks,
                                p.edges, FormatDuration(p.work_ns), p.heuristic);
  out += Wrapped(fmt::format("model: {}.", kPredictionModel), "  ");
  out += fmt::format("\n  {:>10} {:>14} {:>8} {:>14}\n", "processors", "run time", "speedup", "lower bound");
  for (const SpeedupPoint& s : p.curve) {
    out += fmt::format("  {:>10} {:>14} {:>8.2f} {:>14}{}\n", s.processors, FormatDuration(s.makespan), s.speedup,
                       FormatDuration(s.lower_bound), s.optimal ? "  optimal (proven for the model)" : "");
  }
  out += "\n  Projection against measured runs. corrected = from the first grain's start to the last stop, the\n"
         "  time the model covers; replayed = the run's own assignment and order in the model. The corrected\n"
         "  error splits into: model = replayed vs corrected; times = the same replay with the measured run's\n"
         "  grain times and arc costs vs with the run's own; scheduler = projected vs that replay.\n";
  out += fmt::format("  {:>10} {:>13} {:>13} {:>13} {:>13} {:>8} {:>9} {:>7} {:>7} {:>9}  {}\n", "processors",
                     "measured", "corrected", "replayed", "projected", "error", "corrected", "model", "times",
                     "scheduler", "run");
  auto row = [&](const RunComparison& c, std::string_view role) {
    out += fmt::format("  {:>10} {:>13} {:>13} {:>13} {:>13} {:>8} {:>9} {:>7} {:>7} {:>9}  {}{}\n", c.processors,
                       FormatDuration(c.measured_ns), FormatDuration(c.corrected_ns), FormatDuration(c.replayed_ns),
                       FormatDuration(c.projected_ns), Signed(c.error), Signed(c.corrected_error),
                       Signed(c.model_error), c.times_compared ? Signed(c.times_error) : "-",
                       Signed(c.scheduler_error), c.file, role);
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
