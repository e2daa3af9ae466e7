// The happens-before graph of a Trace, as indexes over its tables — not a second copy of it.
//
// Edges: program order on each location (event i -> i+1), message edges (kSend -> kRecv of a
// matched message) and collective edges (kCollBegin of a member -> kCollEnd of the members that
// wait for it, by the operation's shape):
//   all-to-all (barrier, allreduce, ...): every begin -> every end
//   one-to-all (broadcast, scatter):      the root's begin -> every other member's end
//   all-to-one (reduce, gather):          every begin -> the root's end
//   other (scan, unknown):                treated as all-to-all (conservative)
// Event v of location l has the flat index offset(l) + v, so per-event analysis state can live in
// one array.
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace grainscope {

class HbGraph {
 public:
  explicit HbGraph(const Trace& trace);

  const Trace& trace() const { return trace_; }
  size_t location_count() const { return offsets_.size() - 1; }
  uint64_t event_count() const { return offsets_.back(); }
  uint64_t offset(LocationId l) const { return offsets_[l.value]; }
  uint64_t flat(LocationId l, EventIndex e) const { return offsets_[l.value] + e; }

  // Collective members (rows of CollectiveTable's member arrays) of a location in event order.
  const std::vector<uint32_t>& members_of(LocationId l) const { return members_of_[l.value]; }
  // The member row of `l` whose kCollEnd is event `e` (binary search), or UINT32_MAX.
  uint32_t MemberEndingAt(LocationId l, EventIndex e) const;
  // The instance a member row belongs to.
  CollectiveId instance_of(uint32_t member) const { return CollectiveId(instance_of_[member]); }
  // Row of the instance's root among its members, or UINT32_MAX when it has none (or it is not a member).
  uint32_t root_member(CollectiveId c) const { return root_member_[c.value]; }

  // Does this member's kCollEnd wait for other members' begins? (No: the root of a one-to-all,
  // and the non-roots of an all-to-one.)
  bool end_has_inputs(uint32_t member) const;
  // Does `from`'s begin feed `to`'s end? (Both rows of the same instance.)
  bool feeds(uint32_t from, uint32_t to) const;

 private:
  const Trace& trace_;
  std::vector<uint64_t> offsets_;
  std::vector<std::vector<uint32_t>> members_of_;
  std::vector<uint32_t> instance_of_;
  std::vector<uint32_t> root_member_;
};

// The effective data-flow shape of an instance: kOther counts as all-to-all, and a rooted shape
// without a root among the members as well.
CollectiveShape EffectiveShape(const HbGraph& g, CollectiveId c);

}  // namespace grainscope
