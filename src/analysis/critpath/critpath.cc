#include "analysis/critpath/critpath.h"

#include <algorithm>

#include "analysis/replay/measured_waits.h"
#include "model/trace_index.h"

namespace grainscope {
namespace {

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

std::vector<Run> WalkBack(const HbGraph& g, const ForwardSweep& f, LocationId loc, TimeNs* transfer) {
  const Trace& t = g.trace();
  const MessageTable& msgs = t.messages();
  const CollectiveTable& coll = t.collectives();
  std::vector<Run> runs;
  EventIndex e = static_cast<EventIndex>(t.events(loc).size() - 1);
  EventIndex last = e;
  while (true) {
    const uint64_t i = g.flat(loc, e);
    switch (f.cause[i]) {
      case Cause::kProgramOrder:
        --e;
        continue;
      case Cause::kStart:
        runs.push_back({loc, e, last});
        std::reverse(runs.begin(), runs.end());
        return runs;
      case Cause::kMessage: {
        runs.push_back({loc, e, last});
        const uint32_t m = t.events(loc).arg[e];
        LocationId from = msgs.sender[m];
        *transfer += f.value[i] - f.value[g.flat(from, msgs.send_event[m])];
        loc = from;
        e = last = msgs.send_event[m];
        continue;
      }
      case Cause::kDependency: {
        runs.push_back({loc, e, last});
        const DependencyTable& deps = t.dependencies();
        const uint32_t d = f.dependency_argmax[g.incoming().Find(loc, e)];
        const LocationId from = deps.from_location[d];
        *transfer += f.value[i] - f.value[g.flat(from, deps.from_event[d])];
        loc = from;
        e = last = deps.from_event[d];
        continue;
      }
      case Cause::kCollective: {
        runs.push_back({loc, e, last});
        const uint32_t member = g.MemberEndingAt(loc, e);
        const uint32_t src = f.member_argmax.empty() || f.member_argmax[member] == kNoMember
                                 ? f.collective_argmax[g.instance_of(member).value]
                                 : f.member_argmax[member];
        LocationId from = coll.member_location[src];
        *transfer += f.value[i] - f.value[g.flat(from, coll.member_begin[src])];
        loc = from;
        e = last = coll.member_begin[src];
        continue;
      }
    }
  }
}

// The region labels of one run's segments: its innermost region each, neighbours with the same
// region merged.
void LabelRun(const HbGraph& g, const ForwardSweep& f, const Run& run, std::vector<PathSegment>& out) {
  const EventColumns& ev = g.trace().events(run.location);
  const CallNesting nesting = g.trace().index().nesting(run.location);
  nesting.ForEachSegment(run.first, run.last, [&](EventIndex i, RegionId region) {  // i -> i+1 is on the path
    const TimeNs cost = f.value[g.flat(run.location, i + 1)] - f.value[g.flat(run.location, i)];
    if (!out.empty() && out.back().region == region) {
      out.back().end_ns = ev.time[i + 1];
      out.back().time_ns += cost;
    } else {
      out.push_back({run.location, region, ev.time[i], ev.time[i + 1], cost});
    }
  });
}

// Labels the runs' segments with their innermost region; merges neighbours with the same region
// across runs, and drops segments that cost nothing.
std::vector<PathSegment> LabelRuns(const HbGraph& g, const ForwardSweep& f, const std::vector<Run>& runs) {
  std::vector<PathSegment> path;
  std::vector<PathSegment> pieces;
  for (const Run& run : runs) {
    pieces.clear();
    LabelRun(g, f, run, pieces);
    for (const PathSegment& s : pieces)
      if (s.time_ns > 0) {
        if (!path.empty() && path.back().location == s.location && path.back().region == s.region &&
            path.back().end_ns == s.start_ns) {
          path.back().end_ns = s.end_ns;
          path.back().time_ns += s.time_ns;
        } else {
          path.push_back(s);
        }
      }
  }
  return path;
}

// Per location its non-waiting time, and per region the non-waiting time summed over locations.
// `row_of`: FirstRegionOfName, so that a region defined twice is one row.
void ComputeWork(const HbGraph& g, const CritPathModel& model, const std::vector<uint32_t>& row_of, CriticalPath& cp,
                 std::vector<TimeNs>& region_total) {
  const Trace& t = g.trace();
  const size_t outside = t.regions().size();  // the slot of segments outside any region
  cp.compute_ns.assign(g.location_count(), 0);
  region_total.assign(outside + 1, 0);
  for (uint32_t l = 0; l < g.location_count(); ++l) {
    const LocationId loc(l);
    const size_t n = t.events(loc).size();
    const CallNesting nesting = t.index().nesting(loc);
    BlockingSegments blocking(g, loc);
    const EventIndex last = n == 0 ? 0 : static_cast<EventIndex>(n - 1);
    nesting.ForEachSegment(0, last, [&](EventIndex e, RegionId region) {  // segment e -> e+1
      const TimeNs cost = model.Segment(loc, e + 1, blocking.At(e + 1));
      cp.compute_ns[l] += cost;
      region_total[region.valid() ? row_of[region.value] : outside] += cost;
    });
  }
}

// The path ends where the sweep's value is largest: the last event of the location that finishes
// last in the model (the first such location on ties). Sets length_ns and end_location.
void FindPathEnd(const HbGraph& g, const ForwardSweep& f, CriticalPath& cp) {
  bool found = false;
  for (uint32_t l = 0; l < g.location_count(); ++l) {
    const size_t n = g.trace().events(LocationId(l)).size();
    if (n == 0) continue;
    const TimeNs v = f.value[g.flat(LocationId(l), static_cast<EventIndex>(n - 1))];
    if (!found || v > cp.length_ns) {
      cp.length_ns = v;
      cp.end_location = LocationId(l);
      found = true;
    }
  }
}

// Per region its time on the path (profile) and, where that exceeds the region's mean work per
// location, its imbalance; both largest first. `region_total`: ComputeWork's per region.
void ProfileRegions(const HbGraph& g, const std::vector<uint32_t>& row_of, const std::vector<TimeNs>& region_total,
                    CriticalPath& cp) {
  const size_t outside = g.trace().regions().size();
  std::vector<TimeNs> on_path(outside + 1, 0);
  for (const PathSegment& s : cp.path) on_path[s.region.valid() ? row_of[s.region.value] : outside] += s.time_ns;
  for (uint32_t r = 0; r <= outside; ++r) {
    const RegionId region = r == outside ? RegionId() : RegionId(r);
    if (on_path[r] > 0) {
      cp.profile.push_back({region, on_path[r],
                            cp.length_ns > 0 ? static_cast<double>(on_path[r]) / cp.length_ns : 0.0});
    }
    const TimeNs mean = region_total[r] / static_cast<TimeNs>(g.location_count());
    if (on_path[r] > mean) cp.imbalance.push_back({region, on_path[r], mean, on_path[r] - mean});
  }
  auto by_time = [](const auto& a, const auto& b) {
    return a.time_ns != b.time_ns ? a.time_ns > b.time_ns : a.region < b.region;
  };
  std::stable_sort(cp.profile.begin(), cp.profile.end(), by_time);
  std::stable_sort(cp.imbalance.begin(), cp.imbalance.end(), [](const auto& a, const auto& b) {
    return a.imbalance_ns != b.imbalance_ns ? a.imbalance_ns > b.imbalance_ns : a.region < b.region;
  });
}

// Load balance (mean / max work per location), transfer efficiency (length / measured run) and
// serialisation efficiency (max work / length), from compute_ns, the path and the measured run.
void ComputeEfficiencies(CriticalPath& cp) {
  TimeNs max_compute = 0, sum_compute = 0;
  for (TimeNs c : cp.compute_ns) {
    max_compute = std::max(max_compute, c);
    sum_compute += c;
  }
  const double mean_compute = static_cast<double>(sum_compute) / static_cast<double>(cp.compute_ns.size());
  cp.load_balance = max_compute > 0 ? mean_compute / static_cast<double>(max_compute) : 1.0;
  cp.transfer_efficiency = cp.measured_ns > 0 ? static_cast<double>(cp.length_ns) / cp.measured_ns : 1.0;
  cp.serialization_efficiency = cp.length_ns > 0 ? static_cast<double>(max_compute) / cp.length_ns : 1.0;
}

// Slack per grain: latest start (backward sweep from the path length) - earliest start (the
// forward sweep `f`, released before the backward sweep: state stays within 8 bytes per event).
Status ComputeSlack(const HbGraph& g, const CritPathModel& model, ForwardSweep& f, CriticalPath& cp) {
  std::vector<GrainInstance> grains = CollectGrains(g.trace());
  std::vector<TimeNs> earliest;
  earliest.reserve(grains.size());
  for (const GrainInstance& gi : grains) earliest.push_back(f.value[g.flat(gi.location, gi.enter)]);
  f = ForwardSweep();
  GS_ASSIGN_OR_RETURN(std::vector<TimeNs> latest, SweepBackward(g, model, cp.length_ns));
  for (size_t i = 0; i < grains.size(); ++i) {
    const TimeNs late = latest[g.flat(grains[i].location, grains[i].enter)];
    cp.slack.push_back({grains[i], earliest[i], late - earliest[i]});
  }
  return OkStatus();
}

}  // namespace

Result<ForwardSweep> SweepCriticalPath(const HbGraph& g, const CritPathOptions& options) {
  return SweepForward(g, CritPathModel(g, options.message_latency_ns));
}

Result<ForwardSweep> SweepCriticalPath(const HbGraph& g, const CritPathOptions& options, SweepShares& shares) {
  return SweepForward(g, CritPathModel(g, options.message_latency_ns), shares);
}

Result<CriticalPath> ComputeCriticalPath(const Trace& trace, const CritPathOptions& options) {
  if (trace.event_count() == 0) return FailedPrecondition("the trace has no events");
  HbGraph g(trace);
  CritPathModel model(g, options.message_latency_ns);
  GS_ASSIGN_OR_RETURN(ForwardSweep f, SweepForward(g, model));
  CriticalPath cp;
  cp.measured_ns = trace.end_ns() - trace.start_ns();
  FindPathEnd(g, f, cp);
  cp.path = LabelRuns(g, f, WalkBack(g, f, cp.end_location, &cp.transfer_ns));
  std::vector<TimeNs> region_total;
  const std::vector<uint32_t> row_of = FirstRegionOfName(trace);  // regions by name and role
  ComputeWork(g, model, row_of, cp, region_total);
  ProfileRegions(g, row_of, region_total, cp);
  ComputeEfficiencies(cp);
  GS_RETURN_IF_ERROR(ComputeSlack(g, model, f, cp));
  return cp;
}

}  // namespace grainscope
