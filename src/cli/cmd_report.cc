#include <memory>

#include "analysis/profile/profile.h"
#include "analysis/regions/gpu_time.h"
#include "analysis/regions/region_instances.h"
#include "analysis/regions/region_profile.h"
#include "analysis/regions/time_classes.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"

namespace grainscope::cli {

CommandBody AddReportCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto table = std::make_shared<std::string>();
  auto instances = std::make_shared<bool>(false);
  CLI::App* cmd = app.add_subcommand(
      "report", "Where the time went, for every trace: per location computation, MPI time by kind "
                "(point-to-point, collective, synchronisation, other, init/finalize), thread/OpenMP/GPU "
                "synchronisation, GPU work and idle time; exclusive time by region role; per region calls, "
                "inclusive and exclusive time, min/mean/max per call; for GPU traces per rank and stream busy, "
                "computation, communication (NCCL/RCCL) and its overlap with computation, idle time, the CPU's "
                "launch cost, and GPU time by kernel name; and, when the trace has grains, the "
                "seed's general performance report first: speedup, corrected speedup, overall and "
                "per-processor utilisation, each grain's share of the total time");
  AddCommonOptions(*cmd, *o, {"text", "json", "csv"}, false);
  cmd->add_option("--table", *table,
                  "The table CSV output holds: grains (the EPA's, the default when the trace has grains), "
                  "locations (time per location by class), regions (the region profile, the default otherwise) or "
                  "instances (every region instance, as --instances)")
      ->check(CLI::IsMember({"grains", "locations", "regions", "instances"}));
  cmd->add_flag("--instances", *instances,
                "Also list region instances, each execution with its location, start, duration and id (a grain "
                "numbered per execution): the longest --top in text, every one in JSON");
  return [o, table, instances] {
    return Run("report", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o->trace, o->input_format, ReadOptions{o->strict}, r));
      ReportInputs in;
      Result<ExecutionProfile> epa = ComputeGrainView(trace);
      if (epa.ok()) in.epa = &*epa;
      else in.epa_missing = epa.status().message();
      const TimeBreakdown time = ComputeTimeBreakdown(trace);
      const RegionProfile regions = ComputeRegionProfile(trace);
      in.time = &time;
      in.regions = &regions;
      const GpuTime gpu = ComputeGpuTime(trace);
      if (!gpu.empty()) in.gpu = &gpu;
      if (*table == "grains") in.csv_table = ReportTable::kGrains;
      if (*table == "locations") in.csv_table = ReportTable::kLocations;
      if (*table == "regions") in.csv_table = ReportTable::kRegions;
      if (*table == "instances") in.csv_table = ReportTable::kInstances;
      RegionInstances listed;
      if (*instances || *table == "instances") {
        // Text lists the longest --top; JSON and CSV are complete.
        listed = CollectRegionInstances(trace, o->format == "text" ? r.top : 0);
        in.instances = &listed;
      }
      GS_ASSIGN_OR_RETURN(std::string out, RenderReport(trace, in, r));
      return Emit(out, *o, r.notes);
    });
  };
}

}  // namespace grainscope::cli
