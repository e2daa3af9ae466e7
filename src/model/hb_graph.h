// The happens-before graph of a Trace: the one view of every edge between locations that every
// analysis reads (critical path, replay, clock condition, wait states, characterisation, task
// graph, time classes). Built once per trace body and shared by its retimed views (Trace::hb()),
// as indexes over the trace's tables — not a second copy of them.
//
// Two shapes of edges:
//  * point edges: one source event, one target event. Messages (kSend -> kRecv of a matched
//    message) and every dependency kind a reader or the model adds (dependencies.h: lock
//    hand-over, condition signal, fork / join, task create, GPU launch and sync, rendezvous, ...).
//    ForEachPointEdge and the per-location Inputs / Outputs of events see every kind alike, so a
//    new kind of dependency reaches every analysis without an analysis change; what a kind means
//    for waiting is declared once (EdgeKindTraits below).
//  * collective instances (hyper-edges): kCollBegin of a member -> kCollEnd of the members that
//    wait for it, by the operation's shape (CollectiveFlow below is the one rule):
//      all-to-all (barrier, allreduce, ...): every begin -> every end
//      one-to-all (broadcast, scatter):      the root's begin -> every other member's end
//      all-to-one (reduce, gather):          every begin -> the root's end
//      prefix (scan, exscan):                the begins of lower ranks -> a member's end (in the
//                                            communicator's rank order)
//      other (unknown):                      treated as all-to-all (conservative)
//    Kept as instances, never expanded: an all-to-all of k members would be k^2 point edges.
// Program order on each location (event i -> i+1) is implicit. Event v of location l has the
// flat index Trace::flat_offset(l) + v, so per-event analysis state can live in one array.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace grainscope {

// "No collective member row".
inline constexpr uint32_t kNoMember = std::numeric_limits<uint32_t>::max();

// Who waits for whom in one collective instance: the one rule the happens-before graph, the
// replay sweep and the wait states share.
struct CollectiveFlow {
  CollectiveShape shape;  // effective: kAllToAll, kOneToAll, kAllToOne or kPrefix (never kOther)
  uint32_t root;          // the root's member row, or kNoMember
  // For kPrefix: per member row, its position among the instance's members in communicator rank
  // order (HbStructure::position); null otherwise.
  const uint32_t* position = nullptr;

  // kOther counts as all-to-all, and so does a rooted shape without its root among the members
  // and a prefix without the members' rank positions.
  static CollectiveFlow Of(CollectiveOp op, uint32_t root_member, const uint32_t* position = nullptr) {
    CollectiveShape s = ShapeOf(op);
    if (s == CollectiveShape::kOther) s = CollectiveShape::kAllToAll;
    if (s == CollectiveShape::kPrefix) return position == nullptr ? CollectiveFlow{CollectiveShape::kAllToAll, root_member}
                                                                  : CollectiveFlow{s, root_member, position};
    if (s != CollectiveShape::kAllToAll && root_member == kNoMember) s = CollectiveShape::kAllToAll;
    return {s, root_member};
  }

  // Does this member's end wait for other members' begins? (No: the root of a one-to-all, the
  // non-roots of an all-to-one, the first rank of a prefix.)
  bool EndWaits(uint32_t member) const {
    switch (shape) {
      case CollectiveShape::kOneToAll: return member != root;
      case CollectiveShape::kAllToOne: return member == root;
      case CollectiveShape::kPrefix: return position[member] > 0;
      default: return true;
    }
  }
  // Does `from`'s begin feed `to`'s end? (Both rows of this instance.)
  bool Feeds(uint32_t from, uint32_t to) const {
    switch (shape) {
      case CollectiveShape::kOneToAll: return from == root && to != from;
      case CollectiveShape::kAllToOne: return to == root;
      case CollectiveShape::kPrefix: return position[from] < position[to];
      default: return true;
    }
  }
};

// A point edge (header): a matched message or a dependency row, with both of its ends.
struct PointEdge {
  bool message = false;  // a message (row: MessageId) or a dependency (row: DependencyId)
  DependencyKind kind = DependencyKind::kOther;  // for a dependency
  uint32_t row = 0;
  LocationId from;
  EventIndex from_event = kNoEvent;
  LocationId to;
  EventIndex to_event = kNoEvent;
};
// "message", or the dependency kind's name (DependencyKindName).
std::string_view PointEdgeKindName(const PointEdge& e);

// The part of the graph that depends on the body alone (not on times): built once per body by
// Trace::hb() and shared by every trace that shares the body (its retimed views).
struct HbStructure {
  // Its three parts, built separately on first use, so that an analysis that reads only the
  // incoming edges (the time classes) does not pay for the collectives' or the outgoing index.
  enum Part : unsigned { kCollectives = 1, kIncoming = 2, kOutgoing = 4, kAll = 7 };
  void BuildCollectives(const Trace& trace);

  std::vector<std::vector<uint32_t>> members_of;  // per location, its member rows by begin event
  std::vector<uint32_t> instance_of;              // per member row
  std::vector<uint32_t> root_member;              // per instance, or kNoMember
  // Prefix instances (scan, exscan): per member row its position among the instance's members in
  // communicator rank order, and per instance its member rows in that order (by_position[
  // first_member[c] + p]). Empty when the trace has no prefix instance.
  std::vector<uint32_t> position;
  std::vector<uint32_t> by_position;
  DependencyEnds incoming;                        // dependency edges by their `to` end
  DependencyEnds outgoing;                        // and by their `from` end
};

class HbGraph {
 public:
  // The graph of `trace`: a view over the structure the trace's body built once (Trace::hb()).
  // `parts` (HbStructure::Part) are the parts this view reads: only those are built, once.
  explicit HbGraph(const Trace& trace, unsigned parts = HbStructure::kAll);

  const Trace& trace() const { return trace_; }
  size_t location_count() const { return location_count_; }
  uint64_t event_count() const { return trace_.event_count(); }
  // The trace's flat offsets (Trace::flat_offset), read through a plain pointer on hot paths.
  uint64_t offset(LocationId l) const { return offsets_[l.value]; }
  uint64_t flat(LocationId l, EventIndex e) const { return offsets_[l.value] + e; }

  // Every point edge (header) of the graph: matched messages in message order, then dependency
  // rows in row order. f(const PointEdge&).
  template <typename F>
  void ForEachPointEdge(F&& f) const {
    const MessageTable& m = trace_.messages();
    for (uint32_t i = 0; i < m.size(); ++i) {
      if (!m.matched(MessageId(i))) continue;
      f(PointEdge{true, DependencyKind::kOther, i, m.sender[i], m.send_event[i], m.receiver[i], m.recv_event[i]});
    }
    const DependencyTable& d = trace_.dependencies();
    for (uint32_t i = 0; i < d.size(); ++i)
      f(PointEdge{false, d.kind[i], i, d.from_location[i], d.from_event[i], d.to_location[i], d.to_event[i]});
  }
  // How many point edges ForEachPointEdge visits.
  uint64_t point_edge_count() const;

  // Collective members (rows of CollectiveTable's member arrays) of a location in event order.
  const std::vector<uint32_t>& members_of(LocationId l) const { return s_.members_of[l.value]; }
  // How many of location l's members began before event e (binary search).
  uint32_t MembersBegunBefore(LocationId l, EventIndex e) const;
  // The member row of `l` whose kCollEnd is event `e`, or kNoMember (at once for another kind of
  // event: the search below would look at every member begun before it).
  uint32_t MemberEndingAt(LocationId l, EventIndex e) const {
    if (trace_.events(l).kind[e] != EventKind::kCollEnd) return kNoMember;
    return MemberEndingAt(s_.members_of[l.value], MembersBegunBefore(l, e), e);
  }
  // The same, when the caller knows how many of the location's members (`members`, from
  // members_of) began before e: a location's collectives rarely overlap, so this looks at one or
  // two rows. Blocking collectives end in the order they began.
  uint32_t MemberEndingAt(const std::vector<uint32_t>& members, uint32_t begun, EventIndex e) const {
    const std::vector<EventIndex>& end = trace_.collectives().member_end;
    for (uint32_t i = begun; i-- > 0;)
      if (end[members[i]] == e) return members[i];
    return kNoMember;
  }
  // The instance a member row belongs to.
  CollectiveId instance_of(uint32_t member) const { return CollectiveId(s_.instance_of[member]); }
  // Row of the instance's root among its members, or kNoMember when it has none (or it is not a member).
  uint32_t root_member(CollectiveId c) const { return s_.root_member[c.value]; }
  // Does the trace have a prefix instance (scan, exscan)?
  bool has_prefix() const { return !s_.position.empty(); }
  // Prefix instances: a member's position in rank order, and the member at position p of c.
  uint32_t position(uint32_t member) const { return s_.position[member]; }
  uint32_t member_at(CollectiveId c, uint32_t p) const {
    return s_.by_position[trace_.collectives().first_member[c.value] + p];
  }
  // Dependency edges by the event they lead to, and by the event they leave.
  const DependencyEnds& incoming() const { return s_.incoming; }
  const DependencyEnds& outgoing() const { return s_.outgoing; }

  // These three are out of line on purpose: the sweeps call them on collective events only, and
  // inlined they would grow the sweeps' inner loops past what the compiler inlines models into.
  CollectiveFlow flow(CollectiveId c) const;
  // Does this member's kCollEnd wait for other members' begins? (CollectiveFlow::EndWaits)
  bool end_has_inputs(uint32_t member) const;
  // Does `from`'s begin feed `to`'s end? (Both rows of the same instance.)
  bool feeds(uint32_t from, uint32_t to) const;

 private:
  const Trace& trace_;
  const HbStructure& s_;
  size_t location_count_;
  const uint64_t* offsets_;
};

// The effective data-flow shape of an instance (CollectiveFlow::shape).
CollectiveShape EffectiveShape(const HbGraph& g, CollectiveId c);

}  // namespace grainscope
