#include "analysis/critpath/critpath.h"

#include <algorithm>

#include "analysis/critpath/critpath_parts.h"
#include "analysis/replay/measured_waits.h"
#include "analysis/replay/sweep_backward.h"
#include "model/rendezvous.h"
#include "model/trace_index.h"

namespace grainscope {
namespace critpath_internal {

std::optional<PathStep> WalkBack(const HbGraph& g, const ForwardSweep& f, PathStep from, const LocationSet& own,
                                 std::vector<Run>& runs, TimeNs* transfer) {
  const Trace& t = g.trace();
  const MessageTable& msgs = t.messages();
  const CollectiveTable& coll = t.collectives();
  LocationId loc = from.location;
  EventIndex e = from.event;
  EventIndex last = e;
  // Leaves the run at e for the edge's source: on to it, or out of the own locations.
  auto cross = [&](LocationId to, EventIndex at) {
    runs.push_back({loc, e, last});
    *transfer += f.value[g.flat(loc, e)] - f.value[g.flat(to, at)];
    loc = to;
    e = last = at;
    return own.Holds(to.value);
  };
  while (true) {
    const uint64_t i = g.flat(loc, e);
    switch (f.cause[i]) {
      case Cause::kProgramOrder:
        --e;
        continue;
      case Cause::kStart:
        runs.push_back({loc, e, last});
        return std::nullopt;
      case Cause::kMessage: {
        const uint32_t m = t.events(loc).arg[e];
        if (!cross(msgs.sender[m], msgs.send_event[m])) return PathStep{loc, e};
        continue;
      }
      case Cause::kDependency: {
        const DependencyTable& deps = t.dependencies();
        const uint32_t d = f.dependency_argmax[g.incoming().Find(loc, e)];
        if (!cross(deps.from_location[d], deps.from_event[d])) return PathStep{loc, e};
        continue;
      }
      case Cause::kCollective: {
        const uint32_t member = g.MemberEndingAt(loc, e);
        const uint32_t src = f.member_argmax.empty() || f.member_argmax[member] == kNoMember
                                 ? f.collective_argmax[g.instance_of(member).value]
                                 : f.member_argmax[member];
        if (!cross(coll.member_location[src], coll.member_begin[src])) return PathStep{loc, e};
        continue;
      }
    }
  }
}

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

void AppendPiece(const PathSegment& s, std::vector<PathSegment>& path) {
  if (s.time_ns <= 0) return;
  if (!path.empty() && path.back().location == s.location && path.back().region == s.region &&
      path.back().end_ns == s.start_ns) {
    path.back().end_ns = s.end_ns;
    path.back().time_ns += s.time_ns;
  } else {
    path.push_back(s);
  }
}

void ComputeWork(const HbGraph& g, const CritPathModel& model, const std::vector<uint32_t>& row_of,
                 const LocationSet& own, std::vector<TimeNs>& compute_ns, std::vector<TimeNs>& region_total) {
  const Trace& t = g.trace();
  const size_t outside = t.regions().size();  // the slot of segments outside any region
  compute_ns.assign(g.location_count(), 0);
  region_total.assign(outside + 1, 0);
  for (uint32_t l = 0; l < g.location_count(); ++l) {
    if (!own.Holds(l)) continue;
    const LocationId loc(l);
    const size_t n = t.events(loc).size();
    const CallNesting nesting = t.index().nesting(loc);
    BlockingSegments blocking(g, loc);
    const EventIndex last = n == 0 ? 0 : static_cast<EventIndex>(n - 1);
    nesting.ForEachSegment(0, last, [&](EventIndex e, RegionId region) {  // segment e -> e+1
      const TimeNs cost = model.Segment(loc, e + 1, blocking.At(e + 1));
      compute_ns[l] += cost;
      region_total[region.valid() ? row_of[region.value] : outside] += cost;
    });
  }
}

bool FindPathEnd(const HbGraph& g, const ForwardSweep& f, const LocationSet& own, CriticalPath& cp) {
  bool found = false;
  for (uint32_t l = 0; l < g.location_count(); ++l) {
    if (!own.Holds(l)) continue;
    const size_t n = g.trace().events(LocationId(l)).size();
    if (n == 0) continue;
    const TimeNs v = f.value[g.flat(LocationId(l), static_cast<EventIndex>(n - 1))];
    if (!found || v > cp.length_ns) {
      cp.length_ns = v;
      cp.end_location = LocationId(l);
      found = true;
    }
  }
  return found;
}

void ProfileRegions(const Trace& t, const std::vector<uint32_t>& row_of, const std::vector<TimeNs>& region_total,
                    CriticalPath& cp) {
  const size_t outside = t.regions().size();
  std::vector<TimeNs> on_path(outside + 1, 0);
  for (const PathSegment& s : cp.path) on_path[s.region.valid() ? row_of[s.region.value] : outside] += s.time_ns;
  for (uint32_t r = 0; r <= outside; ++r) {
    const RegionId region = r == outside ? RegionId() : RegionId(r);
    if (on_path[r] > 0) {
      cp.profile.push_back({region, on_path[r],
                            cp.length_ns > 0 ? static_cast<double>(on_path[r]) / cp.length_ns : 0.0});
    }
    const TimeNs mean = region_total[r] / static_cast<TimeNs>(t.locations().size());
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

std::vector<GrainSlack> OwnGrains(const HbGraph& g, const ForwardSweep& f, const LocationSet& own) {
  std::vector<GrainSlack> out;
  for (const GrainInstance& gi : CollectGrains(g.trace()))
    if (own.Holds(gi.location.value)) out.push_back({gi, f.value[g.flat(gi.location, gi.enter)], 0});
  return out;
}

void SetSlack(const HbGraph& g, const std::vector<TimeNs>& latest, std::vector<GrainSlack>& grains) {
  for (GrainSlack& s : grains) s.slack_ns = latest[g.flat(s.grain.location, s.grain.enter)] - s.earliest_ns;
}

}  // namespace critpath_internal

using namespace critpath_internal;

Result<ForwardSweep> SweepCriticalPath(const HbGraph& g, const CritPathOptions& options) {
  return SweepForward(g, CritPathModel(g, options.message_latency_ns));
}

Result<ForwardSweep> SweepCriticalPath(const HbGraph& g, const CritPathOptions& options, SweepShares& shares) {
  return SweepForward(g, CritPathModel(g, options.message_latency_ns), shares);
}

Result<CriticalPath> ComputeCriticalPath(const Trace& trace, const CritPathOptions& options) {
  if (trace.event_count() == 0) return FailedPrecondition("the trace has no events");
  const LocationSet every;
  HbGraph g(trace);
  CritPathModel model(g, options.message_latency_ns);
  GS_ASSIGN_OR_RETURN(ForwardSweep f, SweepForward(g, model));
  CriticalPath cp;
  cp.measured_ns = trace.end_ns() - trace.start_ns();
  cp.message_count = trace.messages().size();
  cp.rendezvous_sends = RendezvousSends(trace);
  FindPathEnd(g, f, every, cp);
  std::vector<Run> runs;
  const EventIndex last = static_cast<EventIndex>(trace.events(cp.end_location).size() - 1);
  WalkBack(g, f, {cp.end_location, last}, every, runs, &cp.transfer_ns);
  std::vector<PathSegment> pieces;
  for (size_t r = runs.size(); r-- > 0;) {  // in time order
    pieces.clear();
    LabelRun(g, f, runs[r], pieces);
    for (const PathSegment& s : pieces) AppendPiece(s, cp.path);
  }
  std::vector<TimeNs> region_total;
  const std::vector<uint32_t> row_of = FirstRegionOfName(trace);  // regions by name and role
  ComputeWork(g, model, row_of, every, cp.compute_ns, region_total);
  ProfileRegions(trace, row_of, region_total, cp);
  ComputeEfficiencies(cp);
  // Slack: the forward sweep is released before the backward one (state within 8 bytes per event).
  cp.slack = OwnGrains(g, f, every);
  f = ForwardSweep();
  GS_ASSIGN_OR_RETURN(const std::vector<TimeNs> latest, SweepBackward(g, model, cp.length_ns));
  SetSlack(g, latest, cp.slack);
  return cp;
}

}  // namespace grainscope
