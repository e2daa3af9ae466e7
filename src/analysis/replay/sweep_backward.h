// The backward sweep of the replay engine (sweep.h): latest times, for slack.
//
// latest[last event of l] = horizon, and each edge u -> v with cost c imposes
// latest[u] <= latest[v] - c. Like the forward sweep it is dependency driven, and runs over one
// share of a trace with the latest times of other shares' events received as they are computed
// (sweep_shares.h), in reverse program order. It calls Model::Segment in decreasing order on each
// location: use it only with stateless models.
#pragma once

#include "analysis/replay/sweep.h"

namespace grainscope {
namespace sweep_internal {

template <bool kDeps, class Model, class Shares>
[[gnu::noinline]] Result<std::vector<TimeNs>> Backward(const HbGraph& g, const Model& model, TimeNs horizon,
                                                       Shares& shares) {
  const Trace& t = g.trace();
  const MessageTable& msgs = t.messages();
  const CollectiveTable& coll = t.collectives();
  const size_t n = g.location_count();
  constexpr TimeNs kInf = std::numeric_limits<TimeNs>::max();

  std::vector<TimeNs> latest(g.event_count(), kInf);
  std::vector<uint32_t> ends_done(coll.size(), 0);
  std::vector<TimeNs> min_all_ends(coll.size(), kInf);      // over every member's end, minus its edge cost
  std::vector<TimeNs> min_nonroot_ends(coll.size(), kInf);  // over the non-roots' ends
  std::vector<Cursor> cursors(n);
  std::vector<uint32_t> ready;
  const DependencyEnds& deps_in = g.incoming();
  const DependencyEnds& deps_out = g.outgoing();
  const DependencyTable& deps = t.dependencies();
  constexpr bool has_deps = kDeps;
  // Per location: one past its next outgoing dependency end, and one past its next incoming one
  // (whose event's segment blocks).
  std::vector<uint32_t> next_out(has_deps ? n : 0), next_in(has_deps ? n : 0);
  for (uint32_t l = 0; l < next_out.size(); ++l) {
    next_out[l] = deps_out.last(LocationId(l));
    next_in[l] = deps_in.last(LocationId(l));
  }
  DependencyWaiters dep_waiters(has_deps ? n : 0);
  for (uint32_t l = 0; l < n; ++l) {
    cursors[l].next = static_cast<EventIndex>(t.events(LocationId(l)).size());
    cursors[l].coll_next = static_cast<uint32_t>(g.members_of(LocationId(l)).size());
    if (shares.Own(n - 1 - l)) ready.push_back(n - 1 - l);
  }
  auto end_done = [&](uint32_t member) {
    return cursors[coll.member_location[member].value].next <= coll.member_end[member];
  };
  PrefixFrontier prefix = g.has_prefix() ? PrefixFrontier(g, /*forward=*/false) : PrefixFrontier();
  auto outputs_ready = [&](uint32_t member) {
    const CollectiveId c = g.instance_of(member);
    switch (EffectiveShape(g, c)) {
      case CollectiveShape::kAllToOne: return end_done(g.root_member(c));
      case CollectiveShape::kOneToAll:
        return member != g.root_member(c) || ends_done[c.value] == coll.member_count(c);
      case CollectiveShape::kPrefix: return prefix.Ready(member);
      default: return ends_done[c.value] == coll.member_count(c);
    }
  };
  auto output_latest = [&](uint32_t member) -> TimeNs {
    const CollectiveId c = g.instance_of(member);
    switch (EffectiveShape(g, c)) {
      case CollectiveShape::kAllToOne: {
        const uint32_t root = g.root_member(c);
        return latest[g.flat(coll.member_location[root], coll.member_end[root])] - model.Collective(c, root);
      }
      case CollectiveShape::kOneToAll:
        return member == g.root_member(c) ? min_nonroot_ends[c.value] : kInf;
      case CollectiveShape::kPrefix: return prefix.In(member);  // kInf for the last rank
      default: return min_all_ends[c.value];
    }
  };

  // What an event that just got its latest time l makes ready elsewhere: a receive, its sender; a
  // collective end, the members whose begins wait for it. For own and ghost events alike.
  auto done = [&](Cursor& cur, const std::vector<uint32_t>& members, EventKind kind, EventIndex e, uint32_t arg,
                  TimeNs l) {
    if (kind == EventKind::kRecv) {
      const uint32_t m = arg;
      if (msgs.send_event[m] != kNoEvent) {
        Cursor& s = cursors[msgs.sender[m].value];
        if (s.wait == Wait::kMessage && s.wait_id == m) {
          s.wait = Wait::kNone;
          ready.push_back(msgs.sender[m].value);
        }
      }
    } else if (kind == EventKind::kCollEnd) {
      const uint32_t k = g.MemberEndingAt(members, cur.coll_next, e);
      if (k == kNone) return;
      const CollectiveId c = g.instance_of(k);
      const TimeNs via = l - model.Collective(c, k);  // latest for a begin feeding this end
      min_all_ends[c.value] = std::min(min_all_ends[c.value], via);
      if (k != g.root_member(c)) min_nonroot_ends[c.value] = std::min(min_nonroot_ends[c.value], via);
      ++ends_done[c.value];
      const bool complete = ends_done[c.value] == coll.member_count(c);
      const CollectiveShape shape = EffectiveShape(g, c);
      const bool root_out = shape == CollectiveShape::kAllToOne && k == g.root_member(c);
      bool moved = false;
      if (shape == CollectiveShape::kPrefix) [[unlikely]]
        moved = prefix.Advance(c, end_done, [&](uint32_t m) {
          return latest[g.flat(coll.member_location[m], coll.member_end[m])] - model.Collective(c, m);
        });
      if (complete || root_out || moved) WakeCollective(coll, c, cursors, ready);
    }
  };
  // A ghost event's latest time, from the share that owns its location (sweep_shares.h), which
  // sends them in reverse program order.
  auto ghost = [&](LocationId loc, TimeNs l) {
    Cursor& cur = cursors[loc.value];
    const EventIndex e = --cur.next;
    latest[g.flat(loc, e)] = l;
    const EventColumns& ev = t.events(loc);
    const std::vector<uint32_t>& members = g.members_of(loc);
    if (ev.kind[e] == EventKind::kCollBegin && cur.coll_next > 0) --cur.coll_next;
    done(cur, members, ev.kind[e], e, ev.arg[e], l);
    if (has_deps)  // a rendezvous edge into another share's send completion
      dep_waiters.Wake(loc, cursors, ready, [&](uint32_t row) { return cur.next <= deps.to_event[row]; });
  };

  while (true) {
    GS_ASSIGN_OR_RETURN(const std::optional<LocationId> next, NextReady(ready, shares, ghost));
    if (!next) break;
    const LocationId loc = *next;
    Cursor& cur = cursors[loc.value];
    const EventColumns& ev = t.events(loc);
    const std::vector<uint32_t>& members = g.members_of(loc);
    TimeNs* late = latest.data() + g.offset(loc);
    uint32_t out_end = has_deps ? next_out[loc.value] : 0, in_end = has_deps ? next_in[loc.value] : 0;
    const uint32_t out_first = deps_out.first(loc), in_first = deps_in.first(loc);
    EventIndex out_at = out_end > out_first ? deps_out.event(out_end - 1) : kNoEvent;  // edges leave it
    EventIndex in_at = in_end > in_first ? deps_in.event(in_end - 1) : kNoEvent;      // edges enter it
    while (cur.next > 0) {
      const EventIndex e = cur.next - 1;
      const EventKind kind = ev.kind[e];
      TimeNs l = horizon;
      if (e + 1 < ev.size()) {
        const EventKind next_kind = ev.kind[e + 1];
        uint32_t next_member = kNone;
        if (next_kind == EventKind::kCollEnd) next_member = g.MemberEndingAt(members, cur.coll_next, e + 1);
        l = late[e + 1] - model.Segment(loc, e + 1, (kDeps && in_at == e + 1) || IsBlocking(g, next_kind, next_member));
      }
      uint32_t begin_member = kNone;
      if (kind == EventKind::kSend) {
        const uint32_t m = ev.arg[e];
        if (msgs.recv_event[m] != kNoEvent) {
          const LocationId receiver = msgs.receiver[m];
          if (cursors[receiver.value].next > msgs.recv_event[m]) {  // not processed yet
            cur.wait = Wait::kMessage;
            cur.wait_id = m;
            break;
          }
          l = std::min(l, latest[g.flat(receiver, msgs.recv_event[m])] - model.Message(MessageId(m)));
        }
      } else if (kind == EventKind::kCollBegin && cur.coll_next > 0) {
        begin_member = members[cur.coll_next - 1];
        if (!outputs_ready(begin_member)) {
          cur.wait = Wait::kCollective;
          cur.wait_id = g.instance_of(begin_member).value;
          break;
        }
        const TimeNs out_l = output_latest(begin_member);  // edge costs already subtracted
        if (out_l != kInf) l = std::min(l, out_l);
      }
      if (kDeps && e == out_at) [[unlikely]] {
        TimeNs dep_l;
        uint32_t row;
        if (!DependencyOutput(g, model, out_end - 1, cursors, latest, &dep_l, &row)) {
          cur.wait = Wait::kDependency;
          cur.wait_id = row;
          dep_waiters.Add(deps.to_location[row], loc.value);
          break;
        }
        l = std::min(l, dep_l);
        --out_end;
        out_at = out_end > out_first ? deps_out.event(out_end - 1) : kNoEvent;
      }
      late[e] = l;
      --cur.next;
      if (begin_member != kNone) --cur.coll_next;
      if (kDeps && in_at == e + 1) [[unlikely]] {
        --in_end;
        in_at = in_end > in_first ? deps_in.event(in_end - 1) : kNoEvent;
      }

      shares.Export(loc, e, l);
      done(cur, members, kind, e, ev.arg[e], l);
    }
    if (has_deps) {
      next_out[loc.value] = out_end;
      next_in[loc.value] = in_end;
      dep_waiters.Wake(loc, cursors, ready, [&](uint32_t row) { return cur.next <= deps.to_event[row]; });
    }
  }
  for (uint32_t l = 0; l < n; ++l)
    if (shares.Own(l) && cursors[l].next > 0) return StuckError(g, cursors, false, l);
  return latest;
}

}  // namespace sweep_internal

// Latest times: `latest[flat event]`, with every location's last event at `horizon`. `shares` as
// for SweepForward; SweepShares must have swept forward first (its Backward() turns it round).
template <class Model, class Shares = NoShares>
Result<std::vector<TimeNs>> SweepBackward(const HbGraph& g, const Model& model, TimeNs horizon,
                                          Shares&& shares = Shares()) {
  if (g.trace().dependencies().empty()) return sweep_internal::Backward<false>(g, model, horizon, shares);
  return sweep_internal::Backward<true>(g, model, horizon, shares);
}

}  // namespace grainscope
