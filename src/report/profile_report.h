// The `report` command's output: the EPA grain view, the time per location and the region profile.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/profile/profile.h"
#include "analysis/regions/gpu_time.h"
#include "analysis/regions/region_instances.h"
#include "analysis/regions/region_profile.h"
#include "analysis/regions/time_classes.h"
#include "base/status.h"
#include "report/render_options.h"

namespace grainscope {

Result<std::string> RenderProfile(const Trace& trace, const ExecutionProfile& p, const RenderOptions& o);

// What `report` prints, for every trace: the EPA grain view (`epa`; null when the trace has no
// grains, `epa_missing` then says why), the time per location and the region profile.
// CSV is one table: `csv_table` picks it.
enum class ReportTable { kDefault, kGrains, kLocations, kRegions, kInstances };  // default: grains if any, else regions
struct ReportInputs {
  const ExecutionProfile* epa = nullptr;
  std::string epa_missing;
  const TimeBreakdown* time = nullptr;
  const RegionProfile* regions = nullptr;
  ReportTable csv_table = ReportTable::kDefault;
  // `--instances` (or the CSV table kInstances): the region instances, text after the region table.
  const RegionInstances* instances = nullptr;
  // Traces with GPU streams: the GPU section, after the time per location.
  const GpuTime* gpu = nullptr;
};
Result<std::string> RenderReport(const Trace& trace, const ReportInputs& in, const RenderOptions& o);

}  // namespace grainscope
