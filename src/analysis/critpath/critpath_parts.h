// The steps of the critical path (critpath.h), shared by the whole trace's analysis (critpath.cc)
// and a share's (critpath_shares.h): the cost model, the walk back along the causes, the labelling
// of the path's runs, and the figures made from them.
#pragma once

#include <optional>
#include <vector>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/measured_waits.h"
#include "model/trace_share.h"

namespace grainscope::critpath_internal {

// Bellenot's cost model: work costs its duration, waiting (measured_waits.h) costs nothing,
// edges cost the latency.
class CritPathModel {
 public:
  CritPathModel(const HbGraph& g, TimeNs latency) : trace_(g.trace()), waits_(g), latency_(latency) {
    for (uint32_t l = 0; l < g.location_count(); ++l) times_.push_back(g.trace().events(LocationId(l)).time.data());
  }
  TimeNs Start(LocationId) const { return 0; }
  // Once per event of the sweep: the location's times through one pointer, not through the trace's
  // event columns (three dependent loads the sweep's stores make the compiler repeat every event).
  TimeNs Segment(LocationId l, EventIndex e, bool blocking) const {
    const TimeNs* time = times_[l.value];
    const TimeNs d = time[e] - time[e - 1];
    if (!blocking) return d;
    return BeginsTask(l, e) ? 0 : d - waits_.Wait(l, e);
  }
  TimeNs Message(MessageId) const { return latency_; }
  TimeNs Collective(CollectiveId, uint32_t) const { return latency_; }
  // Lock hand-overs, fork/join, GPU launches and syncs: no network between the two ends.
  TimeNs Dependency(DependencyId) const { return 0; }

 private:
  // Event e begins a task of a team (thread_begin): until then the thread had no work, and the
  // runtime's wake-up after the fork is no work of it either (SPEC.md §3: a worker's time from its
  // release to its next task is never on the path).
  [[gnu::noinline]] bool BeginsTask(LocationId l, EventIndex e) const {
    const EventColumns& ev = trace_.events(l);
    return ev.kind[e] == EventKind::kSync && trace_.syncs().kind[ev.arg[e]] == SyncKind::kThreadBegin;
  }

  const Trace& trace_;
  std::vector<const TimeNs*> times_;  // per location
  MeasuredWaits waits_;
  TimeNs latency_;
};

// Events [first, last] of a location on the path: the segments first->first+1 ... last-1->last.
struct Run {
  LocationId location;
  EventIndex first;
  EventIndex last;
};

// An event the walk back reaches.
struct PathStep {
  LocationId location;
  EventIndex event;
};

// Walks back from `from` along the inputs that realised each value, appending the runs it passes
// (the last run first), while the path stays on `own` locations (LocationSet{}: every location).
// Returns the event of another location where it left them (in a share: a ghost event), or
// nullopt at the path's start. Adds the latency of the edges it crossed to `*transfer`.
std::optional<PathStep> WalkBack(const HbGraph& g, const ForwardSweep& f, PathStep from, const LocationSet& own,
                                 std::vector<Run>& runs, TimeNs* transfer);

// One run's segments labelled with their innermost region, neighbours with the same region
// merged; appended to `out`.
void LabelRun(const HbGraph& g, const ForwardSweep& f, const Run& run, std::vector<PathSegment>& out);
// Appends a run's labelled piece to the path: merged with the last segment when they continue
// each other on one location and region, dropped when it costs nothing.
void AppendPiece(const PathSegment& s, std::vector<PathSegment>& path);

// Per `own` location its non-waiting time (compute_ns, sized for every location), and per region
// row (FirstRegionOfName: `row_of`; the last slot: outside any region) that time summed.
void ComputeWork(const HbGraph& g, const CritPathModel& model, const std::vector<uint32_t>& row_of,
                 const LocationSet& own, std::vector<TimeNs>& compute_ns, std::vector<TimeNs>& region_total);

// Per region its time on the path (profile) and, where that exceeds the region's mean work per
// location, its imbalance; both largest first. `region_total`: ComputeWork's, over every location.
void ProfileRegions(const Trace& t, const std::vector<uint32_t>& row_of, const std::vector<TimeNs>& region_total,
                    CriticalPath& cp);

// The path ends where the sweep's value is largest: the last event of the location that finishes
// last in the model (the first such location on ties). Sets length_ns and end_location from the
// `own` locations; false when none has an event.
bool FindPathEnd(const HbGraph& g, const ForwardSweep& f, const LocationSet& own, CriticalPath& cp);

// Load balance, transfer and serialisation efficiency from compute_ns, the path and the measured run.
void ComputeEfficiencies(CriticalPath& cp);

// The `own` locations' grains (CollectGrains' order) with the earliest start of each (the forward
// sweep's value at its enter).
std::vector<GrainSlack> OwnGrains(const HbGraph& g, const ForwardSweep& f, const LocationSet& own);
// Their slack: latest start (the backward sweep's `latest`) - earliest.
void SetSlack(const HbGraph& g, const std::vector<TimeNs>& latest, std::vector<GrainSlack>& grains);

}  // namespace grainscope::critpath_internal
