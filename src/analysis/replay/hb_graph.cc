#include "analysis/replay/hb_graph.h"

#include <algorithm>
#include <limits>

namespace grainscope {

HbGraph::HbGraph(const Trace& trace) : trace_(trace) {
  const size_t n = trace.locations().size();
  offsets_.assign(n + 1, 0);
  for (uint32_t l = 0; l < n; ++l) offsets_[l + 1] = offsets_[l] + trace.events(LocationId(l)).size();

  const CollectiveTable& c = trace.collectives();
  members_of_.resize(n);
  instance_of_.resize(c.member_location.size());
  root_member_.assign(c.size(), std::numeric_limits<uint32_t>::max());
  for (uint32_t inst = 0; inst < c.size(); ++inst) {
    for (uint32_t m = c.first_member[inst]; m < c.first_member[inst + 1]; ++m) {
      instance_of_[m] = inst;
      members_of_[c.member_location[m].value].push_back(m);
      if (c.root[inst].valid() && c.member_location[m] == c.root[inst]) root_member_[inst] = m;
    }
  }
  for (std::vector<uint32_t>& list : members_of_) {
    std::sort(list.begin(), list.end(),
              [&](uint32_t a, uint32_t b) { return c.member_begin[a] < c.member_begin[b]; });
  }
}

CollectiveShape EffectiveShape(const HbGraph& g, CollectiveId c) {
  const CollectiveShape shape = ShapeOf(g.trace().collectives().op[c.value]);
  if (shape == CollectiveShape::kOther) return CollectiveShape::kAllToAll;
  if ((shape == CollectiveShape::kOneToAll || shape == CollectiveShape::kAllToOne) &&
      g.root_member(c) == std::numeric_limits<uint32_t>::max()) {
    return CollectiveShape::kAllToAll;
  }
  return shape;
}

uint32_t HbGraph::MemberEndingAt(LocationId l, EventIndex e) const {
  const CollectiveTable& c = trace_.collectives();
  const std::vector<uint32_t>& list = members_of_[l.value];
  // Members that began before e, latest first; blocking collectives end in the order they began.
  auto it = std::upper_bound(list.begin(), list.end(), e,
                             [&](EventIndex v, uint32_t m) { return v < c.member_begin[m]; });
  while (it != list.begin()) {
    --it;
    if (c.member_end[*it] == e) return *it;
  }
  return std::numeric_limits<uint32_t>::max();
}

bool HbGraph::end_has_inputs(uint32_t member) const {
  const CollectiveId c = instance_of(member);
  switch (EffectiveShape(*this, c)) {
    case CollectiveShape::kOneToAll: return member != root_member(c);
    case CollectiveShape::kAllToOne: return member == root_member(c);
    default: return true;
  }
}

bool HbGraph::feeds(uint32_t from, uint32_t to) const {
  const CollectiveId c = instance_of(from);
  switch (EffectiveShape(*this, c)) {
    case CollectiveShape::kOneToAll: return from == root_member(c) && to != from;
    case CollectiveShape::kAllToOne: return to == root_member(c);
    default: return true;
  }
}

}  // namespace grainscope
