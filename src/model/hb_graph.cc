#include "model/hb_graph.h"

#include <algorithm>
#include <memory>
#include <mutex>
#include <optional>

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

namespace {

struct HbSlot {
  std::once_flag once;
  std::optional<HbStructure> structure;
};

}  // namespace

std::shared_ptr<void> NewHbSlot() { return std::make_shared<HbSlot>(); }

const HbStructure& Trace::hb() const {
  HbSlot& slot = *static_cast<HbSlot*>(body_->hb_slot.get());
  std::call_once(slot.once, [&] { slot.structure.emplace(HbStructure::Build(*this)); });
  return *slot.structure;
}

HbStructure HbStructure::Build(const Trace& trace) {
  HbStructure s;
  const size_t n = trace.locations().size();
  s.incoming = DependencyEnds(trace.dependencies(), n, /*by_target=*/true);
  s.outgoing = DependencyEnds(trace.dependencies(), n, /*by_target=*/false);
  const CollectiveTable& c = trace.collectives();
  s.members_of.resize(n);
  s.instance_of.resize(c.member_location.size());
  s.root_member.assign(c.size(), kNoMember);
  for (uint32_t inst = 0; inst < c.size(); ++inst) {
    for (uint32_t m = c.first_member[inst]; m < c.first_member[inst + 1]; ++m) {
      s.instance_of[m] = inst;
      s.members_of[c.member_location[m].value].push_back(m);
      if (c.root[inst].valid() && c.member_location[m] == c.root[inst]) s.root_member[inst] = m;
    }
  }
  for (std::vector<uint32_t>& list : s.members_of) {
    std::sort(list.begin(), list.end(),
              [&](uint32_t a, uint32_t b) { return c.member_begin[a] < c.member_begin[b]; });
  }
  return s;
}

HbGraph::HbGraph(const Trace& trace)
    : trace_(trace), s_(trace.hb()), location_count_(trace.locations().size()), offsets_(trace.flat_offsets().data()) {}

std::string_view PointEdgeKindName(const PointEdge& e) {
  return e.message ? std::string_view("message") : DependencyKindName(e.kind);
}

uint64_t HbGraph::point_edge_count() const {
  const MessageTable& m = trace_.messages();
  uint64_t n = trace_.dependencies().size();
  for (uint32_t i = 0; i < m.size(); ++i) n += m.matched(MessageId(i));
  return n;
}

uint32_t HbGraph::MembersBegunBefore(LocationId l, EventIndex e) const {
  const CollectiveTable& c = trace_.collectives();
  const std::vector<uint32_t>& list = s_.members_of[l.value];
  auto it = std::upper_bound(list.begin(), list.end(), e,
                             [&](EventIndex v, uint32_t m) { return v < c.member_begin[m]; });
  return static_cast<uint32_t>(it - list.begin());
}

CollectiveFlow HbGraph::flow(CollectiveId c) const {
  return CollectiveFlow::Of(trace_.collectives().op[c.value], s_.root_member[c.value]);
}

bool HbGraph::end_has_inputs(uint32_t member) const { return flow(instance_of(member)).EndWaits(member); }

bool HbGraph::feeds(uint32_t from, uint32_t to) const { return flow(instance_of(from)).Feeds(from, to); }

CollectiveShape EffectiveShape(const HbGraph& g, CollectiveId c) { return g.flow(c).shape; }

}  // namespace grainscope
