#include "analysis/regions/straggler.h"

#include <algorithm>
#include <map>
#include <type_traits>

#include <fmt/format.h>

#include "analysis/regions/time_classes.h"

namespace grainscope {

ProcessComputation ComputeProcessComputation(const Trace& t, const LocationSet& own) {
  ProcessComputation computation;
  const TimeBreakdown time = ComputeTimeBreakdown(t);
  for (const LocationTime& lt : time.locations) {
    const Location& loc = t.location(lt.location);
    if (loc.kind != LocationKind::kGpuStream && own.Holds(lt.location.value))
      computation[loc.group] += lt[TimeClass::kComputation];
  }
  return computation;
}

namespace {
struct ProcessTime {  // no padding (base/wire.h)
  uint32_t process = 0;
  uint32_t reserved = 0;
  TimeNs computation = 0;
};
static_assert(std::has_unique_object_representations_v<ProcessTime>);
}  // namespace

Result<ProcessComputation> ComputeProcessComputationOfShare(const TraceShare& share, ShareExchange& exchange) {
  std::vector<ProcessTime> rows;
  for (const auto& [process, ns] : ComputeProcessComputation(share.trace, share.locations)) rows.push_back({process, 0, ns});
  GS_ASSIGN_OR_RETURN(const std::vector<ProcessTime> all, AllGather(rows, exchange, "computation times"));
  ProcessComputation whole;
  for (const ProcessTime& r : all) whole[r.process] += r.computation;
  return whole;
}

Result<StragglerPlan> PlanUnstraggle(const Trace& t, const std::string& location) {
  return PlanUnstraggle(t, location, ComputeProcessComputation(t, LocationSet{}));
}

Result<StragglerPlan> PlanUnstraggle(const Trace& t, const std::string& location, const ProcessComputation& computation) {
  StragglerPlan plan;
  const std::optional<LocationId> named = FindLocationNamed(t, location);
  if (!named) return NotFound(fmt::format("--unstraggle: no location named '{}' in the trace", location));
  plan.process = LocationId(t.location(*named).group);
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const Location& loc = t.location(LocationId(l));
    if (loc.kind != LocationKind::kGpuStream && loc.group == plan.process.value) plan.locations.push_back(LocationId(l));
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
