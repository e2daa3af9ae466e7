#include "analysis/profile/profile.h"

#include <algorithm>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "analysis/accuracy/short_grains.h"

namespace grainscope {

std::vector<GanttLane> BuildGantt(const Trace& trace) {
  std::vector<GanttLane> lanes(trace.locations().size());
  for (uint32_t l = 0; l < lanes.size(); ++l) lanes[l].location = LocationId(l);
  for (const GrainInstance& g : CollectGrains(trace)) lanes[g.location.value].tasks.push_back(g);
  return lanes;
}

Result<ExecutionProfile> ComputeProfile(const Trace& trace) {
  std::vector<GanttLane> lanes = BuildGantt(trace);
  ExecutionProfile p;
  TimeNs first = std::numeric_limits<TimeNs>::max();
  TimeNs last = std::numeric_limits<TimeNs>::min();
  size_t grain_count = 0;
  for (const GanttLane& lane : lanes) {
    for (const GrainInstance& g : lane.tasks) {
      p.busy_ns += g.duration();
      first = std::min(first, g.start);
      last = std::max(last, g.stop);
      ++grain_count;
    }
  }
  if (grain_count == 0) {
    return FailedPrecondition(
        "the trace has no grains (no regions of role grain, and no code regions outside communication calls)");
  }
  p.first_start_ns = first - trace.origin_ns();
  p.last_stop_ns = last - trace.origin_ns();
  p.total_ns = p.last_stop_ns;
  if (p.total_ns <= 0) {
    return FailedPrecondition(
        fmt::format("the total execution time is {} ns; speedup and utilisation need a positive run time",
                    p.total_ns));
  }
  const double total = static_cast<double>(p.total_ns);
  const double busy = static_cast<double>(p.busy_ns);
  p.speedup = busy / total;
  size_t processors = 0;
  for (const GanttLane& lane : lanes) processors += lane.tasks.empty() ? 0 : 1;
  p.locations_without_grains = lanes.size() - processors;
  p.utilization = busy / (total * static_cast<double>(processors));
  const TimeNs span = last - first;
  p.corrected_speedup = span > 0 ? busy / static_cast<double>(span) : 0.0;
  for (const GanttLane& lane : lanes) {
    if (lane.tasks.empty()) continue;
    ProcessorProfile proc;
    proc.location = lane.location;
    for (const GrainInstance& g : lane.tasks) {
      proc.busy_ns += g.duration();
      proc.grains.push_back({g, static_cast<double>(g.duration()) / total});
    }
    proc.utilization = static_cast<double>(proc.busy_ns) / total;
    p.processors.push_back(std::move(proc));
  }
  std::vector<RegionSpans> spans(trace.regions().size());
  for (uint32_t r = 0; r < spans.size(); ++r) spans[r].name = trace.str(trace.region(RegionId(r)).name);
  for (const GanttLane& lane : lanes) {
    for (const GrainInstance& g : lane.tasks) {
      spans[g.region.value].instances++;
      spans[g.region.value].total_ns += g.duration();
    }
  }
  if (std::optional<std::string> note = ShortGrainsNote(trace, spans)) p.notes.push_back(std::move(*note));
  return p;
}

Result<ExecutionProfile> ComputeGrainView(const Trace& trace) {
  if (!HasGrainRegions(trace)) {
    return FailedPrecondition(
        "the trace has no grains (regions of role grain), so no speedup or utilisation of grains; "
        "where the time went is in the time per location and the regions");
  }
  return ComputeProfile(trace);
}

}  // namespace grainscope
