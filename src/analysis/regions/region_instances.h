// Region instances: each execution of a region (a matched Enter/Leave) with its location, start,
// duration and, where the trace numbers them, its id (Trace::InstanceId: a grain site's
// executions). The region tables aggregate by region; `report --instances` lists these.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/trace.h"

namespace grainscope {

struct RegionInstance {
  LocationId location;
  RegionId region;
  EventIndex enter = kNoEvent;
  TimeNs start = 0;
  TimeNs duration = 0;
  std::optional<int64_t> id;
};

struct RegionInstances {
  // `top` > 0: the longest `top` (by duration, then location and start); else every instance,
  // by location, then start.
  std::vector<RegionInstance> rows;
  uint64_t total = 0;  // instances in the trace
};

RegionInstances CollectRegionInstances(const Trace& trace, size_t top);

}  // namespace grainscope
