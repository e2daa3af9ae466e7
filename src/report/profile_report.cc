#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/render.h"

namespace grainscope {
namespace {

int64_t GrainId(const Trace& t, const GrainInstance& g) { return t.region(g.region).external_id; }
int64_t ProcessorId(const Trace& t, LocationId l) { return t.location(l).external_id; }

std::string ProfileJson(const Trace& t, const ExecutionProfile& p, const RenderOptions& o) {
  nlohmann::ordered_json j;
  j["total_ns"] = p.total_ns;
  j["busy_ns"] = p.busy_ns;
  j["first_start_ns"] = p.first_start_ns;
  j["speedup"] = p.speedup;
  j["corrected_speedup"] = p.corrected_speedup;
  j["utilization"] = p.utilization;
  nlohmann::ordered_json procs = nlohmann::ordered_json::array();
  for (const ProcessorProfile& proc : p.processors) {
    nlohmann::ordered_json pj;
    pj["id"] = ProcessorId(t, proc.location);
    pj["name"] = t.str(t.location(proc.location).name);
    pj["busy_ns"] = proc.busy_ns;
    pj["utilization"] = proc.utilization;
    nlohmann::ordered_json grains = nlohmann::ordered_json::array();
    for (const GrainShare& g : proc.grains) {
      nlohmann::ordered_json gj;
      gj["id"] = GrainId(t, g.grain);
      gj["name"] = t.str(t.region(g.grain.region).name);
      gj["start_ns"] = g.grain.start - t.origin_ns();
      gj["stop_ns"] = g.grain.stop - t.origin_ns();
      gj["time_ns"] = g.grain.duration();
      gj["percent"] = g.fraction * 100.0;
      gj["fraction"] = g.fraction;
      grains.push_back(std::move(gj));
    }
    pj["grains"] = std::move(grains);
    procs.push_back(std::move(pj));
  }
  j["processors"] = std::move(procs);
  return FinishJson(j, o.notes, p.notes);
}

std::string ProfileCsv(const Trace& t, const ExecutionProfile& p) {
  std::string out = "processor,grain,name,start_ns,stop_ns,time_ns,percent\n";
  for (const ProcessorProfile& proc : p.processors) {
    for (const GrainShare& g : proc.grains) {
      out += fmt::format("{},{},{},{},{},{},{:.6f}\n", ProcessorId(t, proc.location), GrainId(t, g.grain),
                         CsvField(t.str(t.region(g.grain.region).name)), g.grain.start - t.origin_ns(),
                         g.grain.stop - t.origin_ns(), g.grain.duration(), g.fraction * 100.0);
    }
  }
  return out;
}

// The seed's "General performance report" (figure 4.5a), with times added.
std::string ProfileText(const Trace& t, const ExecutionProfile& p, const RenderOptions& o) {
  size_t grains = 0;
  for (const ProcessorProfile& proc : p.processors) grains += proc.grains.size();
  std::string out = fmt::format("General performance report: {}\n", o.source);
  out += fmt::format("  {} processors, {} grains\n\n", p.processors.size(), grains);
  auto line = [&](std::string_view key, const std::string& value) {
    out += fmt::format("  {:<30} {}\n", key, value);
  };
  line("total execution time", FormatDuration(p.total_ns));
  line("sum of grain times", FormatDuration(p.busy_ns));
  line("speedup", fmt::format("{:.2f}", p.speedup));
  line("corrected speedup", fmt::format("{:.2f}   (from the first grain's start at {})",
                                        p.corrected_speedup, FormatDuration(p.first_start_ns)));
  line("overall processor utilisation", FormatPercent(p.utilization) + " %");
  for (const std::string& note : p.notes) out += fmt::format("  note: {}\n", note);
  for (const ProcessorProfile& proc : p.processors) {
    out += fmt::format("\n  Data on {}\n", t.str(t.location(proc.location).name));
    out += fmt::format("    utilisation {} %   busy {}\n", FormatPercent(proc.utilization),
                       FormatDuration(proc.busy_ns));
    if (proc.grains.empty()) continue;
    out += fmt::format("    {:>10} {:>14} {:>14} {:>14} {:>8}\n", "grain id", "start", "stop", "time",
                       "% time");
    for (const GrainShare& g : proc.grains) {
      out += fmt::format("    {:>10} {:>14} {:>14} {:>14} {:>8}\n", GrainId(t, g.grain),
                         FormatDuration(g.grain.start - t.origin_ns()),
                         FormatDuration(g.grain.stop - t.origin_ns()), FormatDuration(g.grain.duration()),
                         FormatPercent(g.fraction));
    }
  }
  return out;
}

}  // namespace

Result<std::string> RenderProfile(const Trace& t, const ExecutionProfile& p, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return ProfileText(t, p, o);
    case OutputFormat::kJson: return ProfileJson(t, p, o);
    case OutputFormat::kCsv: return ProfileCsv(t, p);
    default:
      return InvalidArgument(
          fmt::format("report has no {} output (use text, json or csv)", OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
