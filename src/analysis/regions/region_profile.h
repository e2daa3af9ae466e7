// The flat region profile: per region its calls, inclusive and exclusive time and the
// min / mean / max of one call, over all locations and per location (what Vampir's function
// summary and a flat Cube profile show), for every trace.
//
// Over each location's events with a stack of open regions:
//   a call        an Enter/Leave pair (the builder guarantees proper nesting)
//   inclusive     leave - enter of the call
//   exclusive     inclusive minus the inclusive time of the calls directly inside it
// A region called inside itself (recursion) counts every call, so its inclusive sum counts the
// nested time once per open instance (the per-location stack a reader of `otf2-print` lines
// would keep; flat profilers that charge only the outermost instance give less).
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace grainscope {

struct RegionStats {
  uint64_t calls = 0;
  TimeNs inclusive_ns = 0;
  TimeNs exclusive_ns = 0;
  TimeNs min_ns = 0;  // inclusive time of the shortest call
  TimeNs max_ns = 0;  // ... and of the longest
  // Inclusive time of a call on average, rounded to the nearest ns (halves away from zero).
  TimeNs mean_ns() const;
  void Add(TimeNs inclusive, TimeNs exclusive);
  void Merge(const RegionStats& other);
};

struct LocationRegionStats {
  LocationId location;
  RegionStats stats;
};

struct RegionProfileRow {
  RegionId region;
  RegionStats total;  // over all locations
  // The locations that called it, in location order: RegionProfile::by_location[first, first + count).
  uint32_t first = 0;
  uint32_t count = 0;
};

struct RegionProfile {
  // Regions called at least once, by exclusive time (largest first), then inclusive time, then
  // region id.
  std::vector<RegionProfileRow> rows;
  std::vector<LocationRegionStats> by_location;
};

// Regions are aggregated by name and role (issue 33): a trace that defines one function twice
// (two OTF2 region references, two files of a merged run) has one row, under the first region
// of that name and role (FirstRegionOfName, model/trace.h).
RegionProfile ComputeRegionProfile(const Trace& trace);

// The region profile by role (model/region_roles.h), Scalasca's metric tree folded to its first
// level: per role the regions called, their calls and exclusive time; by exclusive time (largest
// first), then role.
struct RoleProfileRow {
  RegionRole role = RegionRole::kFunction;
  uint32_t regions = 0;
  uint64_t calls = 0;
  TimeNs exclusive_ns = 0;
};
std::vector<RoleProfileRow> ProfileByRole(const Trace& trace, const RegionProfile& profile);

}  // namespace grainscope
