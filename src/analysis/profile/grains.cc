#include "analysis/profile/grains.h"

#include <algorithm>

#include "model/trace_index.h"

namespace grainscope {

bool HasGrainRegions(const Trace& trace) {
  return std::any_of(trace.regions().begin(), trace.regions().end(),
                     [](const Region& r) { return r.role == RegionRole::kGrain; });
}

std::vector<GrainInstance> CollectGrains(const Trace& trace) {
  const bool by_role = HasGrainRegions(trace);
  std::vector<GrainInstance> grains;
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    const LocationId loc(l);
    const EventColumns& ev = trace.events(loc);
    const CallNesting nesting = trace.index().nesting(loc);
    const size_t first = grains.size();
    for (EventIndex i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] != EventKind::kLeave) continue;
      const EventIndex enter = nesting.EnterOf(i);
      const RegionId region(ev.arg[i]);
      const Region& def = trace.region(region);
      const bool top_level = nesting.Parent(enter) == kNoEvent;
      const bool is_grain = by_role ? def.role == RegionRole::kGrain : (top_level && IsWork(def.role));
      if (is_grain) grains.push_back({loc, region, ev.time[enter], ev.time[i], enter, i});
    }
    // Leaves come innermost first; order this location's grains by start.
    std::sort(grains.begin() + static_cast<std::ptrdiff_t>(first), grains.end(),
              [](const GrainInstance& a, const GrainInstance& b) {
                return a.enter < b.enter;
              });
  }
  return grains;
}

}  // namespace grainscope
