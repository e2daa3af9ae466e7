#include "model/hb_graph.h"

#include <algorithm>

namespace grainscope {

CollectiveFlow CollectiveFlow::Of(const CollectiveTable& table, CollectiveId c) {
  uint32_t root = kNoMember;
  const LocationId root_location = table.root[c.value];
  if (root_location.valid()) {
    for (uint32_t m = table.first_member[c.value]; m < table.first_member[c.value + 1]; ++m)
      if (table.member_location[m] == root_location) root = m;
  }
  return Of(table.op[c.value], root);
}

HbGraph::HbGraph(const Trace& trace)
    : trace_(trace),
      location_count_(trace.locations().size()),
      offsets_(trace.flat_offsets().data()),
      incoming_(trace.dependencies(), trace.locations().size(), /*by_target=*/true),
      outgoing_(trace.dependencies(), trace.locations().size(), /*by_target=*/false) {
  const size_t n = location_count_;
  const CollectiveTable& c = trace.collectives();
  members_of_.resize(n);
  instance_of_.resize(c.member_location.size());
  root_member_.assign(c.size(), kNoMember);
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

uint32_t HbGraph::MembersBegunBefore(LocationId l, EventIndex e) const {
  const CollectiveTable& c = trace_.collectives();
  const std::vector<uint32_t>& list = members_of_[l.value];
  auto it = std::upper_bound(list.begin(), list.end(), e,
                             [&](EventIndex v, uint32_t m) { return v < c.member_begin[m]; });
  return static_cast<uint32_t>(it - list.begin());
}

CollectiveFlow HbGraph::flow(CollectiveId c) const {
  return CollectiveFlow::Of(trace_.collectives().op[c.value], root_member_[c.value]);
}

bool HbGraph::end_has_inputs(uint32_t member) const { return flow(instance_of(member)).EndWaits(member); }

bool HbGraph::feeds(uint32_t from, uint32_t to) const { return flow(instance_of(from)).Feeds(from, to); }

CollectiveShape EffectiveShape(const HbGraph& g, CollectiveId c) { return g.flow(c).shape; }

}  // namespace grainscope
