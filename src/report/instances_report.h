// `report --instances`: the region instances (analysis/regions/region_instances.h) behind the
// region table, in text (the longest, --top of them), JSON and CSV (every one).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/regions/region_instances.h"
#include "model/trace.h"

namespace grainscope {

// "Longest region instances: N of M": duration, region, instance id, location, start.
std::string InstancesText(const Trace& t, const RegionInstances& instances);
// Adds "instances" to `j`: {region, id (null without one), location, start_ns, duration_ns}.
void AddInstancesJson(const Trace& t, const RegionInstances& instances, nlohmann::ordered_json& j);
std::string InstancesCsv(const Trace& t, const RegionInstances& instances);

}  // namespace grainscope
