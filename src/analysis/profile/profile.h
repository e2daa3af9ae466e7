// The seed's Execution Profile Analyzer: speedup, utilisation and time per grain (SPEC.md §1).
//
//   grain time          = stop - start
//   total time          = latest stop - origin (time zero is initialize_clock(), so the
//                         initialisation before the first grain counts)
//   speedup             = sum of grain times / total time
//   utilisation         = sum of grain times / (total time x processors)
//   processors          = the locations that ran at least one grain: a thread that only sent a
//                         message, or a rank without grains, is no processor of the grain view
//                         (it would lower utilisation at 0 %); how many were left out is kept
//   processor util.     = its grain times / total time
//   grain % of total    = grain time / total time
//   corrected speedup   = sum of grain times / (latest stop - earliest start)
#pragma once

#include <string>
#include <vector>

#include "analysis/profile/grains.h"
#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

struct GrainShare {
  GrainInstance grain;
  double fraction = 0;  // of total time
};

struct ProcessorProfile {
  LocationId location;
  TimeNs busy_ns = 0;  // sum of its grain times
  double utilization = 0;
  std::vector<GrainShare> grains;  // in start order
};

struct ExecutionProfile {
  TimeNs total_ns = 0;
  TimeNs busy_ns = 0;
  TimeNs first_start_ns = 0;  // earliest grain start, relative to the origin
  TimeNs last_stop_ns = 0;    // latest grain stop, relative to the origin
  double speedup = 0;
  double corrected_speedup = 0;
  double utilization = 0;
  std::vector<ProcessorProfile> processors;  // locations with at least one grain, in location order
  size_t locations_without_grains = 0;        // the trace's other locations, left out
  // What limits the figures' accuracy, a sentence each (analysis/accuracy/short_grains.h).
  std::vector<std::string> notes;
};

// Fails when the trace has no grain instances or its total time is zero. A trace without grain
// regions is profiled over its outermost code regions (grains.h): the task graph and projections
// need units of work whatever the trace holds.
Result<ExecutionProfile> ComputeProfile(const Trace& trace);

// The grain view the reports show (report, html): ComputeProfile, but only for a trace that has
// grains (regions of role grain). Over code regions, the EPA's speedup and utilisation contradict
// the time per location (an MPI rank's one 30 s region would be a "grain"), so they are not shown.
Result<ExecutionProfile> ComputeGrainView(const Trace& trace);

// The actual Gantt chart: each location's grain instances in start order.
struct GanttLane {
  LocationId location;
  std::vector<GrainInstance> tasks;
};
std::vector<GanttLane> BuildGantt(const Trace& trace);

}  // namespace grainscope
