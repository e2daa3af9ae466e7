#include "analysis/replay/replay.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "analysis/replay/measured_waits.h"
#include "analysis/replay/replay_parts.h"
#include "analysis/replay/sweep_shares.h"
#include "analysis/replay/sweep.h"

namespace grainscope {
namespace {

constexpr TimeNs kNever = std::numeric_limits<TimeNs>::min();

class WhatIfModel {
 public:
  WhatIfModel(const HbGraph& g, const WhatIf& w, TimeNs start, std::vector<double> location_speed,
              std::vector<double> region_speed, std::vector<uint8_t> removed)
      : g_(g), t_(g.trace()), w_(w), start_(start), location_speed_(std::move(location_speed)),
        region_speed_(std::move(region_speed)), removed_(std::move(removed)), comm_(CommRoles(g.trace())),
        plain_(IsPlain(location_speed_, region_speed_, removed_)),
        overhead_milli_(std::llround(w.overhead_per_event_ns * 1000.0)), measured_(g), state_(g.location_count()),
        in_call_(w.collective.measured && w.collective.speed == 1 ? std::vector<uint8_t>() : CollectivesInCalls(g)) {}

  // A location starts when it was measured to, unless something else started it: a GPU stream's
  // first kernel, a forked thread's or a task's first event follow their launch, fork or create
  // edge alone (a what-if that makes the launching CPU faster moves them too).
  TimeNs Start(LocationId l) const {
    const EventColumns& ev = t_.events(l);
    State& s = state_[l.value];
    s.frames.clear();
    s.comm.clear();
    return StartedByEdge(l) ? 0 : ev.time[0] - start_;
  }

  bool StartedByEdge(LocationId l) const {
    const DependencyEnds& in = g_.incoming();
    const uint32_t end = in.empty() ? DependencyEnds::kNone : in.Find(l, 0);
    if (end == DependencyEnds::kNone) return false;
    const DependencyTable& d = t_.dependencies();
    for (uint32_t row : in.edges(end))
      if (!DependencyTargetWaits(d.kind[row])) return true;
    return false;
  }

  [[gnu::always_inline]] TimeNs Segment(LocationId l, EventIndex e, bool blocking) const {
    const TimeNs modelled = ModelledSegment(l, e, blocking);
    if (overhead_milli_ == 0) return modelled > 0 ? modelled : 0;  // every replay but compensation: no division per event
    const TimeNs cost = modelled - OverheadShare(e);
    return cost > 0 ? cost : 0;
  }

  // The whole ns of overhead segment e (e >= 1) takes off; a function of e alone, so that the
  // forward and the backward sweep take off the same.
  TimeNs OverheadShare(EventIndex e) const {
    const int64_t k = static_cast<int64_t>(e);
    return (k * overhead_milli_ + 500) / 1000 - ((k - 1) * overhead_milli_ + 500) / 1000;
  }


  [[gnu::always_inline]] TimeNs ModelledSegment(LocationId l, EventIndex e, bool blocking) const {
    const EventColumns& ev = t_.events(l);
    State& s = state_[l.value];
    if (plain_) {
      ApplyPlain(s, ev.kind[e - 1], ev.arg[e - 1]);
    } else {
      Apply(s, ev.kind[e - 1], ev.arg[e - 1]);
    }
    const TimeNs d = ev.time[e] - ev.time[e - 1];
    if (blocking) return BlockingSegment(l, e, d);
    if (ev.kind[e - 1] == EventKind::kSend && IsTransferTail(ev, e)) return w_.network.kind == NetworkKind::kMeasured ? d : 0;
    if (plain_) {  // no speed factors, nothing removed: only "inside a communication call?" matters
      const RegionRole comm = s.comm.empty() ? RegionRole::kFunction : s.comm.back();
      return comm == RegionRole::kFunction ? d : CommunicationSegment(comm, ev, e, d);
    }
    if (s.removed > 0) return 0;
    const Frame* top = s.frames.empty() ? nullptr : &s.frames.back();
    if (top != nullptr && top->comm != RegionRole::kFunction) return CommunicationSegment(top->comm, ev, e, d);
    const double speed = location_speed_[l.value] * (top != nullptr ? top->speed : 1.0);
    return speed == 1.0 ? d : static_cast<TimeNs>(std::llround(static_cast<double>(d) / speed));
  }

  // The measured work after the partner was ready; none if that edge is modelled. (Inlined:
  // out of line, the call in the sweep's loop cost the replay 7 % more spills per event.)
  TimeNs BlockingSegment(LocationId l, EventIndex e, TimeNs d) const {
    // A dependency edge (no network, no collective call) keeps its measured cost.
    bool modelled = false;
    if (t_.events(l).kind[e] == EventKind::kRecv) {
      modelled = w_.network.kind != NetworkKind::kMeasured;
    } else if (const uint32_t member = g_.MemberEndingAt(l, e); member != kNoMember) {
      modelled = IsModelled(g_.instance_of(member));
      if (IsScaled(g_.instance_of(member))) return w_.collective.Scaled(d - measured_.Wait(l, e));
    }
    return modelled ? 0 : d - measured_.Wait(l, e);
  }

  TimeNs Message(MessageId m) const {
    const MessageTable& msgs = t_.messages();
    if (w_.network.kind == NetworkKind::kMeasured) return measured_.MessageLatency(m);
    return w_.network.Transfer(msgs.bytes[m.value]);
  }

  TimeNs Dependency(DependencyId d) const { return measured_.DependencyLatency(d); }

  TimeNs Collective(CollectiveId c, uint32_t member) const {
    const CollectiveTable& coll = t_.collectives();
    if (!IsModelled(c)) {
      const TimeNs latency = measured_.CollectiveLatency(c, member);
      return IsScaled(c) ? w_.collective.Scaled(latency) : latency;
    }
    uint64_t in = 0, out = 0;
    for (uint32_t m = coll.first_member[c.value]; m < coll.first_member[c.value + 1]; ++m) {
      in = std::max(in, coll.member_bytes_sent[m]);
      out = std::max(out, coll.member_bytes_received[m]);
    }
    return w_.collective.Cost(coll.member_count(c), in, out);
  }

 private:
  struct Frame {
    uint32_t region;
    RegionRole comm;  // kFunction when not inside a communication call
    double speed;     // speed factor that applies inside this frame
  };
  struct State {
    std::vector<Frame> frames;
    int removed = 0;  // open removed regions
    std::vector<RegionRole> comm;  // plain models: the open communication calls' roles only
  };

  // An NCCL/RCCL p2p kernel's time after its send (the segment ending at its Leave): the message's
  // transfer, which a network model replaces (the kernel is no MPI call: its role is its own).
  bool IsTransferTail(const EventColumns& ev, EventIndex e) const {
    return ev.kind[e] == EventKind::kLeave && t_.region(RegionId(ev.arg[e])).role == RegionRole::kCommCollective;
  }

  // A segment inside a communication call of role `comm`, ending at event e, measured d.
  TimeNs CommunicationSegment(RegionRole comm, const EventColumns& ev, EventIndex e, TimeNs d) const {
    if (comm == RegionRole::kCollective) return w_.collective.measured ? w_.collective.Scaled(d) : 0;
    if (w_.network.kind == NetworkKind::kMeasured) return d;
    return ev.kind[e] == EventKind::kSend ? w_.network.SendOverhead(t_.messages().bytes[ev.arg[e]]) : 0;
  }

  // Apply's bookkeeping when nothing is sped up or removed: only communication calls are
  // tracked (a region nested in one inherits its role, so entering it changes nothing), which
  // spares a frame per ordinary region on the replay's hot path.
  void ApplyPlain(State& s, EventKind kind, uint32_t arg) const {
    if (kind == EventKind::kEnter) {
      if (comm_[arg] != RegionRole::kFunction) s.comm.push_back(comm_[arg]);
    } else if (kind == EventKind::kLeave) {
      if (comm_[arg] != RegionRole::kFunction && !s.comm.empty()) s.comm.pop_back();
    }
  }

  static bool IsPlain(const std::vector<double>& location_speed, const std::vector<double>& region_speed,
                      const std::vector<uint8_t>& removed) {
    auto one = [](double f) { return f == 1.0; };
    return std::all_of(location_speed.begin(), location_speed.end(), one) &&
           std::all_of(region_speed.begin(), region_speed.end(), one) &&
           std::none_of(removed.begin(), removed.end(), [](uint8_t r) { return r != 0; });
  }

  void Apply(State& s, EventKind kind, uint32_t arg) const {
    if (kind == EventKind::kEnter) {
      const Frame* parent = s.frames.empty() ? nullptr : &s.frames.back();
      RegionRole comm = comm_[arg];
      if (comm == RegionRole::kFunction && parent != nullptr) comm = parent->comm;
      const double inherited = parent != nullptr ? parent->speed : 1.0;
      s.frames.push_back({arg, comm, region_speed_[arg] != 1.0 ? region_speed_[arg] : inherited});
      s.removed += removed_[arg];
    } else if (kind == EventKind::kLeave && !s.frames.empty()) {
      s.removed -= removed_[s.frames.back().region];
      s.frames.pop_back();
    }
  }

  // The collective model replaces (and --collective-speed scales) the costs of collective calls
  // and NCCL/RCCL kernels; a collective outside them (the one MPI_Init holds: the ranks' start-up,
  // not a data transfer) keeps its measured cost. Per instance: 1 when a member's begin is inside
  // a collective call or kernel.
  bool IsModelled(CollectiveId c) const { return !w_.collective.measured && in_call_[c.value] != 0; }
  bool IsScaled(CollectiveId c) const { return w_.collective.speed != 1 && !IsModelled(c) && in_call_[c.value] != 0; }
  static std::vector<uint8_t> CollectivesInCalls(const HbGraph& g) {
    const Trace& t = g.trace();
    std::vector<uint8_t> in_call(t.collectives().size(), 0);
    std::vector<RegionRole> stack;
    for (uint32_t l = 0; l < g.location_count(); ++l) {
      const EventColumns& ev = t.events(LocationId(l));
      const std::vector<uint32_t>& members = g.members_of(LocationId(l));
      size_t next = 0;
      stack.clear();
      for (EventIndex i = 0; i < ev.size(); ++i) {
        if (ev.kind[i] == EventKind::kEnter) stack.push_back(t.region(RegionId(ev.arg[i])).role);
        if (ev.kind[i] == EventKind::kLeave && !stack.empty()) stack.pop_back();
        if (ev.kind[i] != EventKind::kCollBegin || next == members.size()) continue;
        const bool call = std::any_of(stack.begin(), stack.end(),
                                      [](RegionRole r) { return IsCollectiveCall(r) || r == RegionRole::kCommCollective; });
        if (call) in_call[g.instance_of(members[next]).value] = 1;
        ++next;
      }
    }
    return in_call;
  }

  // Per region: its communication role (a barrier's is kCollective: the collective model costs
  // both), or kFunction for computation.
  static std::vector<RegionRole> CommRoles(const Trace& t) {
    std::vector<RegionRole> roles;
    for (const Region& r : t.regions()) {
      roles.push_back(IsCollectiveCall(r.role) ? RegionRole::kCollective
                      : IsCommunication(r.role) ? r.role
                                                : RegionRole::kFunction);
    }
    return roles;
  }

  const HbGraph& g_;
  const Trace& t_;
  const WhatIf& w_;
  TimeNs start_;  // virtual time 0: the whole trace's earliest event (a share's trace holds only some)
  std::vector<double> location_speed_;
  std::vector<double> region_speed_;
  std::vector<uint8_t> removed_;
  std::vector<RegionRole> comm_;
  bool plain_;
  int64_t overhead_milli_;  // the per-event overhead in 1/1000 ns
  MeasuredWaits measured_;
  mutable std::vector<State> state_;  // per location; the forward sweep calls Segment in order
  std::vector<uint8_t> in_call_;  // per instance (CollectivesInCalls); empty when measured and not scaled
};

Result<uint32_t> FindLocation(const Trace& t, const std::string& name) {
  if (const std::optional<LocationId> l = FindLocationNamed(t, name)) return l->value;
  return NotFound(fmt::format("no location named '{}' in the trace", name));
}

Result<std::vector<RegionId>> FindRegions(const Trace& t, const std::string& name) {
  std::vector<RegionId> found;
  for (uint32_t r = 0; r < t.regions().size(); ++r)
    if (t.str(t.region(RegionId(r)).name) == name) found.push_back(RegionId(r));
  if (found.empty()) return NotFound(fmt::format("no region named '{}' in the trace", name));
  return found;
}

}  // namespace

namespace replay_internal {

Result<ForwardSweep> SweepWhatIf(const HbGraph& g, const WhatIf& w, TimeNs start, SweepShares* shares) {
  const Trace& t = g.trace();
  std::vector<double> loc_speed(t.locations().size(), 1.0), region_speed(t.regions().size(), 1.0);
  std::vector<uint8_t> removed(t.regions().size(), 0);
  for (const SpeedFactor& s : w.location_speed) {
    if (!(s.factor > 0)) return InvalidArgument(fmt::format("speed factor for '{}' must be > 0", s.name));
    if (s.location.valid()) {
      loc_speed[s.location.value] = s.factor;
      continue;
    }
    GS_ASSIGN_OR_RETURN(uint32_t l, FindLocation(t, s.name));
    loc_speed[l] = s.factor;
  }
  for (const SpeedFactor& s : w.region_speed) {
    if (!(s.factor > 0)) return InvalidArgument(fmt::format("speed factor for '{}' must be > 0", s.name));
    GS_ASSIGN_OR_RETURN(std::vector<RegionId> regions, FindRegions(t, s.name));
    for (RegionId r : regions) region_speed[r.value] = s.factor;
  }
  for (const std::string& name : w.removed_regions) {
    GS_ASSIGN_OR_RETURN(std::vector<RegionId> regions, FindRegions(t, name));
    for (RegionId r : regions) removed[r.value] = 1;
  }
  WhatIfModel model(g, w, start, std::move(loc_speed), std::move(region_speed), std::move(removed));
  if (shares == nullptr) return SweepForward(g, model);
  return SweepForward(g, model, *shares);
}

TimeNs MaxDeviation(const HbGraph& g, const ForwardSweep& identity, TimeNs start, const LocationSet& own) {
  const Trace& t = g.trace();
  TimeNs deviation = 0;
  for (uint32_t l = 0; l < g.location_count(); ++l) {
    if (!own.Holds(l)) continue;
    const EventColumns& ev = t.events(LocationId(l));
    const TimeNs* v = identity.value.data() + g.offset(LocationId(l));
    for (EventIndex e = 0; e < ev.size(); ++e) deviation = std::max<TimeNs>(deviation, std::llabs(start + v[e] - ev.time[e]));
  }
  return deviation;
}

std::vector<LocationReplay> ReplayedLocations(const HbGraph& g, const ForwardSweep& f, TimeNs start,
                                              const LocationSet& own) {
  const Trace& t = g.trace();
  std::vector<LocationReplay> out;
  for (uint32_t l = 0; l < g.location_count(); ++l) {
    if (!own.Holds(l)) continue;
    const LocationId loc(l);
    const size_t n = t.events(loc).size();
    LocationReplay lr{loc};
    if (n > 0) {
      lr.measured_ns = t.events(loc).time[n - 1] - start;
      lr.predicted_ns = f.value[g.flat(loc, static_cast<EventIndex>(n - 1))];
    }
    out.push_back(lr);
  }
  return out;
}

// Each edge counted by the share of its target (the location that waits for it).
ClockViolations CountClockViolations(const HbGraph& g, const LocationSet& own) {
  const Trace& t = g.trace();
  ClockViolations n;
  g.ForEachPointEdge([&](const PointEdge& e) {
    if (!own.Holds(e.to.value) || t.events(e.to).time[e.to_event] >= t.events(e.from).time[e.from_event]) return;
    ++(e.message ? n.messages : n.dependencies);
  });
  const MeasuredWaits measured(g);
  const CollectiveTable& coll = t.collectives();
  for (uint32_t k = 0; k < coll.member_location.size(); ++k) {
    if (!own.Holds(coll.member_location[k].value) || !g.end_has_inputs(k)) continue;
    n.collectives += t.events(coll.member_location[k]).time[coll.member_end[k]] < measured.FeedTime(k);
  }
  return n;
}

}  // namespace replay_internal

using namespace replay_internal;

ClockViolations CountClockViolations(const Trace& t) { return CountClockViolations(HbGraph(t)); }

ClockViolations CountClockViolations(const HbGraph& g) { return CountClockViolations(g, LocationSet{}); }

Result<ReplayResult> Replay(const Trace& t, const WhatIf& w, bool check_identity) {
  if (t.event_count() == 0) return FailedPrecondition("the trace has no events");
  HbGraph g(t);
  const LocationSet all;
  ReplayResult r;
  r.measured_ns = t.end_ns() - t.start_ns();
  r.events = t.event_count();
  r.clock_violations = CountClockViolations(g);

  ForwardSweep what_if;
  if (check_identity || w.identity()) {
    GS_ASSIGN_OR_RETURN(ForwardSweep identity, SweepWhatIf(g, WhatIf{}, t.start_ns(), nullptr));
    r.max_deviation_ns = MaxDeviation(g, identity, t.start_ns(), all);
    if (w.identity()) what_if = std::move(identity);
  }
  if (!w.identity()) {
    GS_ASSIGN_OR_RETURN(what_if, SweepWhatIf(g, w, t.start_ns(), nullptr));
  }
  r.locations = ReplayedLocations(g, what_if, t.start_ns(), all);
  for (const LocationReplay& l : r.locations) r.predicted_ns = std::max(r.predicted_ns, l.predicted_ns);
  // The absolute replayed times, in place: one pass, no second array to clear.
  for (TimeNs& v : what_if.value) v += t.start_ns();
  GS_ASSIGN_OR_RETURN(r.times, Timeline::FromFlat(t, std::move(what_if.value)));
  return r;
}

}  // namespace grainscope
