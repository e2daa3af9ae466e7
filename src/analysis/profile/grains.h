// Grain instances: the executions of grains found in a trace, the unit of the seed's Execution
// Profile Analyzer (EPA), its Gantt chart and its task graph.
//
// A grain instance is an Enter/Leave pair of a region whose role is kGrain. A trace that has no
// such region (an MPI or thread trace of code regions) uses its outermost regions of work
// (IsWork: code, OpenMP constructs, GPU work, ...) on each location instead, so the EPA reports
// still say something useful about it; MPI calls (MPI_Init and MPI_Finalize included) and
// regions of role kOther are not grains then (but see GrainFallback).
#pragma once

#include <vector>

#include "model/trace.h"

namespace grainscope {

struct GrainInstance {
  LocationId location;
  RegionId region;
  TimeNs start = 0;
  TimeNs stop = 0;
  EventIndex enter = kNoEvent;
  EventIndex leave = kNoEvent;
  // The grain's id, as the seed's views print it: the instance's own id (Trace::InstanceId: a
  // grain numbered per execution), else a grain region's external id (the seed's grain id), else
  // -1 (a region that stands in for grains has no grain id).
  int64_t id = -1;

  TimeNs duration() const { return stop - start; }
};

// Where a trace with neither grains nor regions of work (an MPI trace recorded without user
// regions: only calls) finds its grains: none (the EPA views and the critical path's slack have
// nothing to say), or its outermost calls but kOther ones (the task graph of the calls, edges by
// their messages: what `taskgraph` builds of such a trace).
enum class GrainFallback { kNone, kOutermostCalls };

// All grain instances, ordered by location, then start time, then enter event.
std::vector<GrainInstance> CollectGrains(const Trace& trace, GrainFallback fallback = GrainFallback::kNone);

// True when the trace has regions of role kGrain (else CollectGrains used outermost regions).
bool HasGrainRegions(const Trace& trace);

}  // namespace grainscope
