// `grainscope html`: one self-contained page per trace (docs/html.md). Everything is inline: the
// script and style (src/report/html/, embedded at build time) and the data, as JSON in a
// <script type="application/json"> element. Large arrays travel as base64 typed arrays, and a
// multi-resolution summary of the Gantt chart (report/lod.h) keeps huge traces fast to draw.
#pragma once

#include <string>
#include <vector>

#include "analysis/critpath/critpath.h"
#include "analysis/profile/profile.h"
#include "analysis/regions/region_profile.h"
#include "analysis/regions/time_classes.h"
#include "analysis/summary/summary.h"
#include "analysis/waits/characterize.h"
#include "base/status.h"
#include "schedule/predict.h"

namespace grainscope {

// What the page shows; any analysis may be missing (null) when it does not apply to the trace,
// with the reason in `notes`.
struct HtmlReportInputs {
  std::string source;  // the trace's file name, for headings
  const Trace* trace = nullptr;
  const TraceSummary* summary = nullptr;
  const ExecutionProfile* profile = nullptr;  // the grain view (ComputeGrainView), when the trace has grains
  const TimeBreakdown* time = nullptr;         // where the time went, as `report` classes it
  const RegionProfile* regions = nullptr;
  const CriticalPath* critical_path = nullptr;
  const WaitStates* waits = nullptr;
  const Characterization* characterization = nullptr;
  const Prediction* prediction = nullptr;
  std::vector<std::string> notes;
};

// Limits that keep the page small; beyond them the page says what it left out.
struct HtmlLimits {
  size_t raw_grains = 1'500'000;  // grains embedded one by one (12 bytes each before base64)
  size_t lod_min_grains = 50'000;  // fewer grains: no summary levels, the page draws them all
  size_t lod_cells = 2'000'000;    // summary cells (lanes x buckets, all levels) at most
  size_t messages = 500'000;       // message arrows
  size_t waits = 500'000;          // wait-state intervals
  size_t blocked = 500'000;        // blocked periods (locks, conditions, joins, barriers, MPI waits)
  size_t path_segments = 500'000;  // critical-path stretches
  size_t table_grains = 200;       // rows of the per-grain table (the longest grains)
  size_t table_regions = 50;       // rows of the region table (most exclusive time first)
  size_t table_instances = 200;    // rows of the region-instance table (the longest instances)
  size_t table_locations = 500;    // rows of the time-per-location table (in location order)
  size_t table_sync_points = 50;   // synchronisation points with their wait classes (most waiting first)
  size_t table_classes = 10;       // wait classes per synchronisation point (most waiting first)
};

Result<std::string> RenderHtmlReport(const HtmlReportInputs& in, const HtmlLimits& limits = {});

}  // namespace grainscope
