#include "analysis/profile/grains.h"

#include <algorithm>

#include "model/trace_index.h"

namespace grainscope {

bool HasGrainRegions(const Trace& trace) {
  return std::any_of(trace.regions().begin(), trace.regions().end(),
                     [](const Region& r) { return r.role == RegionRole::kGrain; });
}

namespace {

// Which regions are grains: those of role grain; in a trace without, its outermost regions of
// work; in one without either, its outermost calls (GrainFallback).
enum class GrainRule { kByRole, kOutermostWork, kOutermostCall };

bool IsGrain(GrainRule rule, RegionRole role, bool top_level) {
  switch (rule) {
    case GrainRule::kByRole: return role == RegionRole::kGrain;
    case GrainRule::kOutermostWork: return top_level && IsWork(role);
    case GrainRule::kOutermostCall: return top_level && role != RegionRole::kOther;
  }
  return false;
}

int64_t GrainIdOf(const Trace& trace, LocationId loc, EventIndex enter, RegionId region) {
  if (const std::optional<int64_t> id = trace.InstanceId(loc, enter)) return *id;
  const Region& r = trace.region(region);
  return r.role == RegionRole::kGrain ? r.external_id : -1;
}

std::vector<GrainInstance> Collect(const Trace& trace, GrainRule rule) {
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
      if (IsGrain(rule, trace.region(region).role, nesting.Parent(enter) == kNoEvent))
        grains.push_back({loc, region, ev.time[enter], ev.time[i], enter, i, GrainIdOf(trace, loc, enter, region)});
    }
    // Leaves come innermost first; order this location's grains by start.
    std::sort(grains.begin() + static_cast<std::ptrdiff_t>(first), grains.end(),
              [](const GrainInstance& a, const GrainInstance& b) { return a.enter < b.enter; });
  }
  return grains;
}

}  // namespace

std::vector<GrainInstance> CollectGrains(const Trace& trace, GrainFallback fallback) {
  if (HasGrainRegions(trace)) return Collect(trace, GrainRule::kByRole);
  std::vector<GrainInstance> grains = Collect(trace, GrainRule::kOutermostWork);
  if (grains.empty() && fallback == GrainFallback::kOutermostCalls) return Collect(trace, GrainRule::kOutermostCall);
  return grains;
}

}  // namespace grainscope
