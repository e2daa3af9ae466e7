// The replay engine: one max-plus sweep over the happens-before graph (hb_graph.h), written once
// and parameterised by a cost model. Critical path, timestamp correction / what-if replay and
// overhead compensation are cost models on top of it (SPEC.md §3-5).
//
// Forward sweep, for every event e of location l:
//   value[first event]   = model.Start(l)
//   value[e]             = value[e-1] + model.Segment(l, e, blocking)            (program order)
//   value[kRecv e]       = max(that, value[send] + model.Message(m))             (message edge)
//   value[kCollEnd e]    = max(that, max over feeding begins + model.Collective(c, member))
//   value[e]             = max(that, max over dependency edges d into e: value[from] + model.Dependency(d))
// `blocking` is true for the segment that ends at a receive completion, at a collective end
// that waits for others, or at the target of a dependency edge: the time a location spent waiting
// there. Ties keep program order, then the message or collective over a dependency edge; among
// collective members the first member (lowest location) realising the max wins, among dependency
// edges into one event the lowest row.
//
// Backward sweep (latest times, sweep_backward.h): latest[last event of l] = horizon, and each
// edge u -> v with cost c imposes latest[u] <= latest[v] - c. Slack of an event = latest - value.
//
// Both sweeps are dependency driven: a location runs until it needs a value another location has
// not produced yet, and resumes when it has (a location waiting on a dependency edge resumes
// once the edge's source location has stopped past the edge's source: dependency sources carry no
// marker in the event columns, so their locations do not check for waiters per event). Dependency
// edges are met through a per-location cursor over their ends (HbGraph::incoming / outgoing), as
// messages are through the event kinds: a trace without them costs one register compare per
// event. Work is O(events + messages + collective members + dependencies);
// state is 9 bytes per event (value, cause) plus a few words per location, message and collective.
// The sweep only needs a location's own events plus values carried by its incoming edges, so the
// forward sweep also runs over one share of a trace, with the values of other shares' events
// received as they are computed (sweep_shares.h), and so does the backward sweep.
//
// The Model is a template parameter: no virtual call per event. It must provide
//   TimeNs Start(LocationId l) const;
//   TimeNs Segment(LocationId l, EventIndex e, bool blocking) const;   // e >= 1
//   TimeNs Message(MessageId m) const;
//   TimeNs Collective(CollectiveId c, uint32_t member) const;  // to that member's end
//   TimeNs Dependency(DependencyId d) const;
// The forward sweep calls Segment exactly once per event e >= 1, in increasing e on each
// location, so a model may keep per-location state (a region stack, a NIC clock). The backward
// sweep calls it in decreasing order: use it only with stateless models.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "base/status.h"
#include "analysis/replay/prefix_frontier.h"
#include "analysis/replay/sweep_shares.h"
#include "model/hb_graph.h"

namespace grainscope {

// Which input realised an event's value in the forward sweep.
enum class Cause : uint8_t { kStart = 0, kProgramOrder = 1, kMessage = 2, kCollective = 3, kDependency = 4 };

struct ForwardSweep {
  std::vector<TimeNs> value;  // per flat event (HbGraph::flat)
  std::vector<Cause> cause;   // per flat event
  // Per collective instance: the member row whose begin realised the max of the feeding begins.
  std::vector<uint32_t> collective_argmax;
  // Prefix instances (scan, exscan), whose members wait for different begins: per member row,
  // the member whose begin realised the max of its feeding begins. Empty without prefixes.
  std::vector<uint32_t> member_argmax;
  // Per incoming dependency end (HbGraph::incoming): the edge row whose source realised the max.
  std::vector<uint32_t> dependency_argmax;
};

namespace sweep_internal {

inline constexpr uint32_t kNone = kNoMember;

enum class Wait : uint8_t { kNone, kMessage, kCollective, kDependency };

struct Cursor {
  EventIndex next = 0;       // forward: next event to process; backward: one past it
  uint32_t coll_next = 0;    // forward: next collective member of this location to begin
  Wait wait = Wait::kNone;
  uint32_t wait_id = 0;
};

// Makes every member of collective c that waits for it ready to run again.
inline void WakeCollective(const CollectiveTable& coll, CollectiveId c, std::vector<Cursor>& cursors,
                           std::vector<uint32_t>& ready) {
  for (uint32_t m = coll.first_member[c.value]; m < coll.first_member[c.value + 1]; ++m) {
    Cursor& w = cursors[coll.member_location[m].value];
    if (w.wait == Wait::kCollective && w.wait_id == c.value) {
      w.wait = Wait::kNone;
      ready.push_back(coll.member_location[m].value);
    }
  }
}

// Per location, the locations waiting on a dependency edge from (forward) or to (backward) it.
// Checked when the location stops running, not per event.
class DependencyWaiters {
 public:
  explicit DependencyWaiters(size_t locations) : waiting_(locations) {}
  void Add(LocationId on, uint32_t waiter) { waiting_[on.value].push_back(waiter); }
  // Wakes the waiters on `l` whose edge `done(row)` says is satisfied.
  template <class Done>
  [[gnu::noinline]] void Wake(LocationId l, std::vector<Cursor>& cursors, std::vector<uint32_t>& ready, Done done) {
    std::vector<uint32_t>& list = waiting_[l.value];
    size_t kept = 0;
    for (uint32_t w : list) {
      Cursor& c = cursors[w];
      if (c.wait != Wait::kDependency) continue;
      if (done(c.wait_id)) {
        c.wait = Wait::kNone;
        ready.push_back(w);
      } else {
        list[kept++] = w;
      }
    }
    list.resize(kept);
  }

 private:
  std::vector<std::vector<uint32_t>> waiting_;
};

// Out of line, like the two below: rare, and the sweeps' inner loops must stay small enough for
// the compiler to inline the models into them.
// The latest input over the dependency edges into end `end` (HbGraph::incoming) and the row that
// realised it, or false with `*row` an edge whose source is not computed yet.
template <class Model>
[[gnu::noinline]] bool DependencyInput(const HbGraph& g, const Model& model, uint32_t end, const std::vector<Cursor>& cursors,
                     const std::vector<TimeNs>& value, TimeNs* in, uint32_t* row) {
  const DependencyTable& d = g.trace().dependencies();
  *in = std::numeric_limits<TimeNs>::min();
  uint32_t best = kNone;
  for (uint32_t r : g.incoming().edges(end)) {
    if (cursors[d.from_location[r].value].next <= d.from_event[r]) {
      *row = r;
      return false;
    }
    const TimeNs v = value[g.flat(d.from_location[r], d.from_event[r])] + model.Dependency(DependencyId(r));
    if (best == kNone || v > *in) *in = v, best = r;
  }
  *row = best;
  return true;
}

// The earliest latest-time bound over the dependency edges out of end `end` (HbGraph::outgoing),
// or false with `*row` an edge whose target is not computed yet.
template <class Model>
[[gnu::noinline]] bool DependencyOutput(const HbGraph& g, const Model& model, uint32_t end, const std::vector<Cursor>& cursors,
                      const std::vector<TimeNs>& latest, TimeNs* out, uint32_t* row) {
  const DependencyTable& d = g.trace().dependencies();
  *out = std::numeric_limits<TimeNs>::max();
  for (uint32_t r : g.outgoing().edges(end)) {
    if (cursors[d.to_location[r].value].next > d.to_event[r]) {
      *row = r;
      return false;
    }
    *out = std::min(*out, latest[g.flat(d.to_location[r], d.to_event[r])] - model.Dependency(DependencyId(r)));
  }
  return true;
}

Status StuckError(const HbGraph& g, const std::vector<Cursor>& cursors, bool forward, uint32_t first);


// The next own location ready to run; when none is, the values other shares send (`ghost` takes
// each) until one is. nullopt when the sweep has ended (at once when serial: NoShares).
template <class Shares, class Ghost>
Result<std::optional<LocationId>> NextReady(std::vector<uint32_t>& ready, Shares& shares, Ghost& ghost) {
  while (ready.empty()) {
    GS_ASSIGN_OR_RETURN(const bool more, shares.Import(ghost));
    if (!more) return std::optional<LocationId>();
  }
  const LocationId loc(ready.back());
  ready.pop_back();
  return std::optional(loc);
}

// True when the segment ending at event e (e >= 1) is spent waiting for another location.
inline bool IsBlocking(const HbGraph& g, EventKind kind, uint32_t member_if_coll_end) {
  if (kind == EventKind::kRecv) return true;
  if (kind == EventKind::kCollEnd) return member_if_coll_end != kNone && g.end_has_inputs(member_if_coll_end);
  return false;
}

// The latest feeding begin of `member`'s end: the root's for a one-to-all, the lower ranks' for a
// prefix, every member's otherwise. Out of line: collective ends are rare among events.
[[gnu::noinline]] inline TimeNs FeedValue(const HbGraph& g, CollectiveId c, uint32_t member, const ForwardSweep& out,
                                          const std::vector<TimeNs>& feed_max, const PrefixFrontier& prefix) {
  const CollectiveTable& coll = g.trace().collectives();
  switch (EffectiveShape(g, c)) {
    case CollectiveShape::kOneToAll: {
      const uint32_t root = g.root_member(c);
      return out.value[g.flat(coll.member_location[root], coll.member_begin[root])];
    }
    case CollectiveShape::kPrefix: return prefix.In(member);
    default: return feed_max[c.value];
  }
}

}  // namespace sweep_internal

// The `blocking` flag the sweeps pass to Model::Segment, for analyses that walk a location's
// segments themselves (the critical path's per-location work): At(e) for e = 1, 2, ... in order.
class BlockingSegments {
 public:
  BlockingSegments(const HbGraph& g, LocationId l)
      : g_(g), events_(g.trace().events(l)), members_(g.members_of(l)), end_(g.incoming().first(l)),
        last_end_(g.incoming().last(l)) {}
  // Whether the segment ending at event e (e >= 1) is spent waiting for another location.
  bool At(EventIndex e) {
    if (end_ < last_end_) [[unlikely]] {
      while (end_ < last_end_ && g_.incoming().event(end_) < e) ++end_;
      if (end_ < last_end_ && g_.incoming().event(end_) == e) return true;
    }
    const EventKind kind = events_.kind[e];
    if (kind != EventKind::kCollEnd) return sweep_internal::IsBlocking(g_, kind, kNoMember);
    const CollectiveTable& coll = g_.trace().collectives();
    while (begun_ < members_.size() && coll.member_begin[members_[begun_]] < e) ++begun_;
    return sweep_internal::IsBlocking(g_, kind, g_.MemberEndingAt(members_, begun_, e));
  }

 private:
  const HbGraph& g_;
  const EventColumns& events_;
  const std::vector<uint32_t>& members_;
  uint32_t begun_ = 0;  // members that began before the last collective end asked about
  uint32_t end_;        // the next incoming dependency end at or after the last e asked
  uint32_t last_end_;
};

namespace sweep_internal {

// The sweeps come in two instantiations: kDeps false for traces without dependency edges (most:
// MPI traces), whose inner loops are then exactly those of a sweep that knows no such edges.
// Never inlined into its caller: a function of its own, the compiler keeps the models inlined into
// the loop (inlined into the caller, the loop lost them: replay 8 % slower).
template <bool kDeps, class Model, class Shares>
[[gnu::noinline]] Result<ForwardSweep> Forward(const HbGraph& g, const Model& model, Shares& shares) {
  const Trace& t = g.trace();
  const MessageTable& msgs = t.messages();
  const CollectiveTable& coll = t.collectives();
  const size_t n = g.location_count();

  ForwardSweep out;
  out.value.assign(g.event_count(), 0);
  out.cause.assign(g.event_count(), Cause::kStart);
  out.collective_argmax.assign(coll.size(), kNone);
  const DependencyEnds& deps_in = g.incoming();
  const DependencyTable& deps = t.dependencies();
  constexpr bool has_deps = kDeps;
  out.dependency_argmax.assign(deps_in.end_count(), kNone);
  std::vector<uint32_t> next_in(has_deps ? n : 0);  // per location: its next incoming dependency end
  for (uint32_t l = 0; l < next_in.size(); ++l) next_in[l] = deps_in.first(LocationId(l));
  DependencyWaiters dep_waiters(has_deps ? n : 0);
  std::vector<uint32_t> arrivals(coll.size(), 0);
  std::vector<TimeNs> feed_max(coll.size(), std::numeric_limits<TimeNs>::min());
  std::vector<Cursor> cursors(n);
  std::vector<uint32_t> ready;
  ready.reserve(n);
  for (uint32_t l = n; l-- > 0;)
    if (shares.Own(l)) ready.push_back(l);

  auto begin_done = [&](uint32_t member) {
    const LocationId l = coll.member_location[member];
    return cursors[l.value].next > coll.member_begin[member];
  };
  const bool has_prefix = g.has_prefix();
  PrefixFrontier prefix = has_prefix ? PrefixFrontier(g, /*forward=*/true) : PrefixFrontier();
  if (has_prefix) out.member_argmax.assign(coll.member_location.size(), kNone);
  auto inputs_ready = [&](uint32_t member) {
    const CollectiveId c = g.instance_of(member);
    switch (EffectiveShape(g, c)) {
      case CollectiveShape::kOneToAll: return begin_done(g.root_member(c));
      case CollectiveShape::kPrefix: return prefix.Ready(member);
      default: return arrivals[c.value] == coll.member_count(c);
    }
  };

  // What an event that just got value v makes ready elsewhere: a send, its receiver; a collective
  // begin, the members that wait for it. For own and ghost events alike.
  auto done = [&](Cursor& cur, const std::vector<uint32_t>& members, EventKind kind, uint32_t arg, TimeNs v) {
    if (kind == EventKind::kSend) {
      const uint32_t m = arg;
      if (msgs.recv_event[m] != kNoEvent) {
        Cursor& r = cursors[msgs.receiver[m].value];
        if (r.wait == Wait::kMessage && r.wait_id == m) {
          r.wait = Wait::kNone;
          ready.push_back(msgs.receiver[m].value);
        }
      }
    } else if (kind == EventKind::kCollBegin && cur.coll_next < members.size()) {
      const uint32_t k = members[cur.coll_next++];
      const CollectiveId c = g.instance_of(k);
      const CollectiveShape shape = EffectiveShape(g, c);
      const bool root_in = shape == CollectiveShape::kOneToAll && k == g.root_member(c);
      if (shape == CollectiveShape::kOneToAll) {
        // Only the root feeds the others (FeedValue): a later non-root begin is no input.
        if (root_in) out.collective_argmax[c.value] = k;
      } else if (v > feed_max[c.value] || (v == feed_max[c.value] && k < out.collective_argmax[c.value])) {
        // Members arrive in any order; the argmax keeps the lowest row among equal values.
        feed_max[c.value] = v;
        out.collective_argmax[c.value] = k;
      }
      ++arrivals[c.value];
      const bool complete = arrivals[c.value] == coll.member_count(c);
      bool moved = false;
      if (shape == CollectiveShape::kPrefix) [[unlikely]]
        moved = prefix.Advance(c, begin_done, [&](uint32_t m) {
          return out.value[g.flat(coll.member_location[m], coll.member_begin[m])];
        });
      if (complete || root_in || moved) WakeCollective(coll, c, cursors, ready);
    }
  };
  // A ghost event's value, from the share that owns its location (sweep_shares.h).
  auto ghost = [&](LocationId l, TimeNs v) {
    Cursor& cur = cursors[l.value];
    const EventIndex e = cur.next++;
    out.value[g.flat(l, e)] = v;
    const EventColumns& ev = t.events(l);
    done(cur, g.members_of(l), ev.kind[e], ev.arg[e], v);
    if (has_deps)  // a rendezvous edge from another share's receive posting
      dep_waiters.Wake(l, cursors, ready, [&](uint32_t row) { return cur.next > deps.from_event[row]; });
  };

  while (true) {
    GS_ASSIGN_OR_RETURN(const std::optional<LocationId> next, NextReady(ready, shares, ghost));
    if (!next) break;
    const LocationId loc = *next;
    Cursor& cur = cursors[loc.value];
    const EventColumns& ev = t.events(loc);
    const std::vector<uint32_t>& members = g.members_of(loc);
    TimeNs* value = out.value.data() + g.offset(loc);
    Cause* cause = out.cause.data() + g.offset(loc);
    uint32_t in_end = has_deps ? next_in[loc.value] : 0;
    const uint32_t in_last = deps_in.last(loc);
    EventIndex dep_at = in_end < in_last ? deps_in.event(in_end) : kNoEvent;  // next event with edges in
    // Locals, not cur.next and ev's spans: the stores to value and cause below would otherwise
    // make the compiler reload them every event. cur.next is still written every event, since
    // the rare paths read other locations' cursors (and may read this one's).
    const EventKind* const kinds = ev.kind.data();
    const uint32_t* const args = ev.arg.data();
    const EventIndex size = static_cast<EventIndex>(ev.size());
    for (EventIndex e = cur.next; e < size;) {
      const EventKind kind = kinds[e];
      uint32_t member = kNone;
      if (kind == EventKind::kCollEnd) member = g.MemberEndingAt(members, cur.coll_next, e);
      // First make sure every input of e exists, so that Segment is called once per event.
      TimeNs in = std::numeric_limits<TimeNs>::min();
      Cause in_cause = Cause::kProgramOrder;
      if (kind == EventKind::kRecv) {
        const uint32_t m = args[e];
        if (msgs.send_event[m] != kNoEvent) {
          const LocationId sender = msgs.sender[m];
          if (cursors[sender.value].next <= msgs.send_event[m]) {  // not sent yet
            cur.wait = Wait::kMessage;
            cur.wait_id = m;
            break;
          }
          in = out.value[g.flat(sender, msgs.send_event[m])] + model.Message(MessageId(m));
          in_cause = Cause::kMessage;
        }
      } else if (kind == EventKind::kCollEnd && member != kNone && g.end_has_inputs(member)) {
        const CollectiveId c = g.instance_of(member);
        if (!inputs_ready(member)) {
          cur.wait = Wait::kCollective;
          cur.wait_id = c.value;
          break;
        }
        in = FeedValue(g, c, member, out, feed_max, prefix) + model.Collective(c, member);
        in_cause = Cause::kCollective;
        if (has_prefix) out.member_argmax[member] = prefix.Arg(member);
      }
      if (kDeps && e == dep_at) [[unlikely]] {
        TimeNs dep_in;
        uint32_t row;
        if (!DependencyInput(g, model, in_end, cursors, out.value, &dep_in, &row)) {
          cur.wait = Wait::kDependency;
          cur.wait_id = row;
          dep_waiters.Add(deps.from_location[row], loc.value);
          break;
        }
        out.dependency_argmax[in_end] = row;
        if (dep_in > in) {
          in = dep_in;
          in_cause = Cause::kDependency;
        }
      }
      TimeNs v;
      Cause why;
      if (e == 0) {
        v = model.Start(loc);
        why = Cause::kStart;
      } else {
        v = value[e - 1] + model.Segment(loc, e, (kDeps && e == dep_at) || IsBlocking(g, kind, member));
        why = Cause::kProgramOrder;
      }
      if (in > v) {
        v = in;
        why = in_cause;
      }
      value[e] = v;
      cause[e] = why;
      cur.next = e + 1;
      if (kDeps && e == dep_at) [[unlikely]] {
        ++in_end;
        dep_at = in_end < in_last ? deps_in.event(in_end) : kNoEvent;
      }

      shares.Export(loc, e, v);
      done(cur, members, kind, args[e], v);
      ++e;
    }
    if (has_deps) {
      next_in[loc.value] = in_end;
      dep_waiters.Wake(loc, cursors, ready, [&](uint32_t row) { return cur.next > deps.from_event[row]; });
    }
  }
  for (uint32_t l = 0; l < n; ++l)
    if (shares.Own(l) && cursors[l].next < t.events(LocationId(l)).size()) return StuckError(g, cursors, true, l);
  return out;
}

}  // namespace sweep_internal

// `shares`: NoShares (the whole trace) or SweepShares (one share, sweep_shares.h).
template <class Model, class Shares = NoShares>
Result<ForwardSweep> SweepForward(const HbGraph& g, const Model& model, Shares&& shares = Shares()) {
  if (g.trace().dependencies().empty()) return sweep_internal::Forward<false>(g, model, shares);
  return sweep_internal::Forward<true>(g, model, shares);
}

}  // namespace grainscope
