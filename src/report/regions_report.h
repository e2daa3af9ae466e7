// The parts of `report` every trace has (render.h, RenderReport): the time per location by class
// and the region profile, in text, JSON and CSV. Used by profile_report.cc, which adds the EPA
// grain view in front when the trace has grains.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/regions/region_profile.h"
#include "analysis/regions/time_classes.h"
#include "model/trace.h"

namespace grainscope {

// Text sections "Time per location" and "Regions by exclusive time"; `top` rows of each (0: all).
std::string TimeAndRegionsText(const Trace& t, const TimeBreakdown& time, const RegionProfile& regions, size_t top);
// Adds span_ns, start_ns, end_ns, locations, time_total and regions to `j` (docs/json.md).
void AddTimeAndRegionsJson(const Trace& t, const TimeBreakdown& time, const RegionProfile& regions,
                           nlohmann::ordered_json& j);
std::string LocationTimeCsv(const Trace& t, const TimeBreakdown& time);
std::string RegionProfileCsv(const Trace& t, const TimeBreakdown& time, const RegionProfile& regions);

}  // namespace grainscope
