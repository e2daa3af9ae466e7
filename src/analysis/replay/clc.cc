#include "analysis/replay/clc.h"

#include <algorithm>
#include <limits>

#include "analysis/replay/replay.h"
#include "analysis/replay/replay_parts.h"
#include "analysis/replay/sweep_shares.h"
#include "analysis/replay/sweep.h"

namespace grainscope {
namespace {

// Measured durations everywhere (waiting included), min_latency on every edge.
class ClcModel {
 public:
  ClcModel(const Trace& t, TimeNs start, TimeNs min_latency) : t_(t), start_(start), min_latency_(min_latency) {}
  TimeNs Start(LocationId l) const { return t_.events(l).time[0] - start_; }
  TimeNs Segment(LocationId l, EventIndex e, bool) const {
    const EventColumns& ev = t_.events(l);
    return ev.time[e] - ev.time[e - 1];
  }
  TimeNs Message(MessageId) const { return min_latency_; }
  TimeNs Collective(CollectiveId, uint32_t) const { return min_latency_; }
  TimeNs Dependency(DependencyId) const { return min_latency_; }

 private:
  const Trace& t_;
  TimeNs start_;  // the whole trace's first event (a share's trace holds only some)
  TimeNs min_latency_;
};

// Latest corrected time each send / collective begin may take without breaking an edge.
std::vector<TimeNs> Caps(const HbGraph& g, const std::vector<TimeNs>& v, TimeNs min_latency) {
  const Trace& t = g.trace();
  constexpr TimeNs kFree = std::numeric_limits<TimeNs>::max();
  std::vector<TimeNs> cap(v.size(), kFree);
  // Every point edge (messages and every dependency kind) caps its source.
  g.ForEachPointEdge([&](const PointEdge& e) {
    TimeNs& slot = cap[g.flat(e.from, e.from_event)];
    slot = std::min(slot, v[g.flat(e.to, e.to_event)] - min_latency);
  });
  const CollectiveTable& coll = t.collectives();
  for (uint32_t c = 0; c < coll.size(); ++c) {
    for (uint32_t from = coll.first_member[c]; from < coll.first_member[c + 1]; ++from) {
      TimeNs& slot = cap[g.flat(coll.member_location[from], coll.member_begin[from])];
      for (uint32_t to = coll.first_member[c]; to < coll.first_member[c + 1]; ++to) {
        if (to == from || !g.feeds(from, to)) continue;
        slot = std::min(slot, v[g.flat(coll.member_location[to], coll.member_end[to])] - min_latency);
      }
    }
  }
  return cap;
}

// Walks back from each jump of own location l's shift (an event whose shift exceeds its
// predecessor's) to the previous jump, ramping the earlier events' shifts up toward the jump's.
void Amortise(const HbGraph& g, LocationId l, TimeNs start, const std::vector<TimeNs>& cap, std::vector<TimeNs>& v) {
  const EventColumns& ev = g.trace().events(l);
  TimeNs* val = v.data() + g.offset(l);
  const TimeNs* lim = cap.data() + g.offset(l);
  auto shift = [&](EventIndex i) { return val[i] - (ev.time[i] - start); };
  for (EventIndex j = static_cast<EventIndex>(ev.size()); j-- > 1;) {
    if (shift(j) <= shift(j - 1)) continue;
    // previous jump: the last i < j whose shift exceeds its predecessor's (or the start)
    EventIndex a = j - 1;
    while (a > 0 && shift(a) <= shift(a - 1)) --a;
    const TimeNs base = shift(a), target = shift(j);
    const TimeNs span = ev.time[j] - ev.time[a];
    for (EventIndex i = j - 1; i > a; --i) {
      const TimeNs ramp =
          span > 0 ? base + static_cast<TimeNs>(static_cast<__int128>(target - base) * (ev.time[i] - ev.time[a]) / span)
                   : base;
      TimeNs want = std::max(shift(i), ramp);
      TimeNs moved = (ev.time[i] - start) + want;
      moved = std::min({moved, val[i + 1], lim[i]});
      val[i] = std::max(val[i], moved);
    }
    j = a + 1;  // the loop's decrement continues at the anchor, itself a jump or the start
  }
}

}  // namespace

namespace replay_internal {

Result<std::vector<TimeNs>> CorrectClocks(const HbGraph& g, TimeNs start, TimeNs min_latency, const LocationSet& own,
                                          SweepShares* shares) {
  const ClcModel model(g.trace(), start, min_latency);
  Result<ForwardSweep> f = shares == nullptr ? SweepForward(g, model) : SweepForward(g, model, *shares);
  if (!f.ok()) return f.status();
  std::vector<TimeNs>& v = f->value;  // relative to `start`; v >= measured everywhere
  const std::vector<TimeNs> cap = Caps(g, v, min_latency);
  for (uint32_t l = 0; l < g.location_count(); ++l)
    if (own.Holds(l)) Amortise(g, LocationId(l), start, cap, v);
  return std::move(v);
}

}  // namespace replay_internal

Result<ClcResult> ControlledLogicalClock(const Trace& t, const ClcOptions& o) {
  ClcResult r;
  r.violations = CountClockViolations(t);
  if (t.event_count() == 0) return r;
  HbGraph g(t);
  GS_ASSIGN_OR_RETURN(std::vector<TimeNs> v, replay_internal::CorrectClocks(g, t.start_ns(), o.min_latency_ns, {}, nullptr));
  for (uint32_t l = 0; l < g.location_count(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    for (EventIndex e = 0; e < ev.size(); ++e) {
      TimeNs& corrected = v[g.flat(LocationId(l), e)];
      corrected += t.start_ns();
      const TimeNs moved = corrected - ev.time[e];
      r.moved_events += moved != 0;
      r.max_shift_ns = std::max(r.max_shift_ns, moved);
    }
  }
  GS_ASSIGN_OR_RETURN(r.times, Timeline::FromFlat(t, std::move(v)));
  return r;
}

}  // namespace grainscope
