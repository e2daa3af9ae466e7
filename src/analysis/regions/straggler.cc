#include "analysis/regions/straggler.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "analysis/regions/time_classes.h"

namespace grainscope {

Result<StragglerPlan> PlanUnstraggle(const Trace& t, const std::string& location) {
  StragglerPlan plan;
  const std::optional<LocationId> named = FindLocationNamed(t, location);
  if (!named) return NotFound(fmt::format("--unstraggle: no location named '{}' in the trace", location));
  plan.process = LocationId(t.location(*named).group);
  const TimeBreakdown time = ComputeTimeBreakdown(t);
  std::map<uint32_t, TimeNs> computation;  // per process with a CPU location
  for (const LocationTime& lt : time.locations) {
    const Location& loc = t.location(lt.location);
    if (loc.kind == LocationKind::kGpuStream) continue;
    computation[loc.group] += lt[TimeClass::kComputation];
    if (loc.group == plan.process.value) plan.locations.push_back(lt.location);
  }
  std::vector<TimeNs> others;
  for (const auto& [process, ns] : computation) {
    if (process == plan.process.value) {
      plan.computation_ns = ns;
    } else {
      others.push_back(ns);
    }
  }
  if (plan.locations.empty())
    return FailedPrecondition(fmt::format("--unstraggle '{}': its process has no CPU location to speed up", location));
  if (others.empty())
    return FailedPrecondition(fmt::format("--unstraggle '{}': the trace has no other process with a CPU location to compare with", location));
  std::sort(others.begin(), others.end());
  const size_t n = others.size();
  plan.median_ns = n % 2 == 1 ? others[n / 2] : (others[n / 2 - 1] + others[n / 2]) / 2;
  if (plan.median_ns == 0)
    return FailedPrecondition(fmt::format("--unstraggle '{}': the other processes computed nothing to compare with", location));
  if (plan.computation_ns > plan.median_ns)
    plan.factor = static_cast<double>(plan.computation_ns) / static_cast<double>(plan.median_ns);
  return plan;
}

}  // namespace grainscope
