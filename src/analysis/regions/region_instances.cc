#include "analysis/regions/region_instances.h"

#include <algorithm>
#include <tuple>

#include "model/trace_index.h"

namespace grainscope {
namespace {

// Longer first; ties by location, then start (a stable order for goldens).
bool Longer(const RegionInstance& a, const RegionInstance& b) {
  return std::make_tuple(-a.duration, a.location.value, a.start) < std::make_tuple(-b.duration, b.location.value, b.start);
}

}  // namespace

RegionInstances CollectRegionInstances(const Trace& trace, size_t top) {
  RegionInstances out;
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    const LocationId loc(l);
    const EventColumns& ev = trace.events(loc);
    const CallNesting nesting = trace.index().nesting(loc);
    const size_t first = out.rows.size();
    for (EventIndex i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] != EventKind::kLeave) continue;
      ++out.total;
      const EventIndex enter = nesting.EnterOf(i);
      const RegionInstance r{loc, RegionId(ev.arg[i]), enter, ev.time[enter], ev.time[i] - ev.time[enter], std::nullopt};
      // The top `top` as a heap whose first element is the shortest kept.
      if (top > 0 && out.rows.size() == top) {
        if (!Longer(r, out.rows.front())) continue;
        std::pop_heap(out.rows.begin(), out.rows.end(), Longer);
        out.rows.back() = r;
        std::push_heap(out.rows.begin(), out.rows.end(), Longer);
        continue;
      }
      out.rows.push_back(r);
      if (top > 0) std::push_heap(out.rows.begin(), out.rows.end(), Longer);
    }
    // Leaves come innermost first: this location's instances by start.
    if (top == 0)
      std::sort(out.rows.begin() + static_cast<std::ptrdiff_t>(first), out.rows.end(),
                [](const RegionInstance& a, const RegionInstance& b) { return a.enter < b.enter; });
  }
  if (top > 0) std::sort_heap(out.rows.begin(), out.rows.end(), Longer);
  for (RegionInstance& r : out.rows) r.id = trace.InstanceId(r.location, r.enter);
  return out;
}

}  // namespace grainscope
