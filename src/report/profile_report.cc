#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/gpu_report.h"
#include "report/region_name.h"
#include "report/notes.h"
#include "report/regions_report.h"
#include "report/profile_report.h"
#include "report/grain_id.h"
#include "report/instances_report.h"
#include "report/rows.h"

namespace grainscope {
namespace {

int64_t ProcessorId(const Trace& t, LocationId l) { return t.location(l).external_id; }

// The EPA's JSON fields, without the notes (FinishJson adds them last).
nlohmann::ordered_json ProfileJson(const Trace& t, const ExecutionProfile& p) {
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
      gj["id"] = GrainIdJson(g.grain.id);
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
  j["locations_without_grains"] = p.locations_without_grains;
  return j;
}

std::string ProfileCsv(const Trace& t, const ExecutionProfile& p) {
  std::string out = "processor,grain,name,start_ns,stop_ns,time_ns,percent\n";
  for (const ProcessorProfile& proc : p.processors) {
    for (const GrainShare& g : proc.grains) {
      out += fmt::format("{},{},{},{},{},{},{:.6f}\n", ProcessorId(t, proc.location), GrainIdCsv(g.grain.id),
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
  out += fmt::format("  {} processors, {} grains\n", p.processors.size(), grains);
  if (p.locations_without_grains > 0) {
    out += fmt::format("  ({} location{} without grains left out: not processors of the grain view)\n",
                       p.locations_without_grains, p.locations_without_grains == 1 ? "" : "s");
  }
  out += "\n";
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
  const size_t shown_procs = RowsShown(p.processors.size(), o.top);
  for (size_t k = 0; k < shown_procs; ++k) {
    const ProcessorProfile& proc = p.processors[k];
    out += fmt::format("\n  Data on {}\n", t.str(t.location(proc.location).name));
    out += fmt::format("    utilisation {} %   busy {}\n", FormatPercent(proc.utilization),
                       FormatDuration(proc.busy_ns));
    if (proc.grains.empty()) continue;
    out += fmt::format("    {:>10} {:>14} {:>14} {:>14} {:>8}  {}\n", "grain id", "start", "stop", "time",
                       "% time", "region");
    const size_t shown = RowsShown(proc.grains.size(), o.top);
    for (size_t i = 0; i < shown; ++i) {
      const GrainShare& g = proc.grains[i];
      out += fmt::format("    {:>10} {:>14} {:>14} {:>14} {:>8}  {}\n", GrainIdText(g.grain.id),
                         FormatDuration(g.grain.start - t.origin_ns()),
                         FormatDuration(g.grain.stop - t.origin_ns()), FormatDuration(g.grain.duration()),
                         FormatPercent(g.fraction), TextRegionName(t, g.grain.region));
    }
    out += RowsLeftOut(proc.grains.size(), shown, "    ");
  }
  if (shown_procs < p.processors.size()) out += "\n" + RowsLeftOut(p.processors.size(), shown_procs);
  return out;
}

}  // namespace

Result<std::string> RenderProfile(const Trace& t, const ExecutionProfile& p, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return ProfileText(t, p, o);
    case OutputFormat::kJson: {
      nlohmann::ordered_json j = ProfileJson(t, p);
      return FinishJson(j, o.notes, p.notes);
    }
    case OutputFormat::kCsv: return ProfileCsv(t, p);
    default:
      return InvalidArgument(
          fmt::format("report has no {} output (use text, json or csv)", OutputFormatName(o.format)));
  }
}

Result<std::string> RenderReport(const Trace& t, const ReportInputs& in, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: {
      std::string out;
      if (in.epa != nullptr) {
        out = ProfileText(t, *in.epa, o) + "\n";
      } else {
        const size_t n = t.locations().size();
        out = fmt::format("Performance report: {}\n  {} location{}, no grain view: {}\n\n", o.source, n,
                          n == 1 ? "" : "s", in.epa_missing);
      }
      out += TimeAndRegionsText(t, *in.time, *in.regions, o.top);
      if (in.gpu != nullptr) out += GpuTimeText(t, *in.gpu, o.top);
      return in.instances != nullptr ? out + InstancesText(t, *in.instances) : out;
    }
    case OutputFormat::kJson: {
      nlohmann::ordered_json j = in.epa != nullptr ? ProfileJson(t, *in.epa) : nlohmann::ordered_json::object();
      j["grain_view"] = in.epa != nullptr;
      AddTimeAndRegionsJson(t, *in.time, *in.regions, j);
      if (in.gpu != nullptr) AddGpuTimeJson(t, *in.gpu, j);
      if (in.instances != nullptr) AddInstancesJson(t, *in.instances, j);
      return FinishJson(j, o.notes,
                        in.epa != nullptr ? in.epa->notes : std::vector<std::string>{"no grain view: " + in.epa_missing});
    }
    case OutputFormat::kCsv: {
      ReportTable table = in.csv_table;
      if (table == ReportTable::kDefault) table = in.epa != nullptr ? ReportTable::kGrains : ReportTable::kRegions;
      switch (table) {
        case ReportTable::kGrains:
          if (in.epa == nullptr) return FailedPrecondition("no grains table: " + in.epa_missing);
          return ProfileCsv(t, *in.epa);
        case ReportTable::kLocations: return LocationTimeCsv(t, *in.time);
        case ReportTable::kInstances:
          if (in.instances == nullptr) return FailedPrecondition("no instances table was collected");
          return InstancesCsv(t, *in.instances);
        default: return RegionProfileCsv(t, *in.time, *in.regions);
      }
    }
    default:
      return InvalidArgument(
          fmt::format("report has no {} output (use text, json or csv)", OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
