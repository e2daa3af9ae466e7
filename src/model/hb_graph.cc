#include "model/hb_graph.h"

#include <algorithm>
#include <numeric>
#include <memory>
#include <mutex>

namespace grainscope {

namespace {

struct HbSlot {
  std::once_flag collectives, incoming, outgoing;
  HbStructure structure;
};

}  // namespace

std::shared_ptr<void> NewHbSlot() { return std::make_shared<HbSlot>(); }

const HbStructure& Trace::hb(unsigned parts) const {
  HbSlot& slot = *static_cast<HbSlot*>(body_->hb_slot.get());
  HbStructure& s = slot.structure;
  const size_t n = locations().size();
  if (parts & HbStructure::kCollectives) std::call_once(slot.collectives, [&] { s.BuildCollectives(*this); });
  if (parts & HbStructure::kIncoming)
    std::call_once(slot.incoming, [&] { s.incoming = DependencyEnds(dependencies(), n, /*by_target=*/true); });
  if (parts & HbStructure::kOutgoing)
    std::call_once(slot.outgoing, [&] { s.outgoing = DependencyEnds(dependencies(), n, /*by_target=*/false); });
  return s;
}

namespace {

// HbStructure::position and by_position of the prefix instances: members in the rank order of
// their communicator (a member the communicator does not list goes after those it does, in
// location order).
void AddPrefixPositions(const Trace& trace, HbStructure& s) {
  const CollectiveTable& c = trace.collectives();
  std::vector<uint32_t> rank_of;  // per location, in the communicator last looked at
  CommunicatorId ranked;
  for (uint32_t inst = 0; inst < c.size(); ++inst) {
    if (ShapeOf(c.op[inst]) != CollectiveShape::kPrefix) continue;
    if (s.position.empty()) {
      s.position.assign(c.member_location.size(), 0);
      s.by_position.resize(c.member_location.size());
      std::iota(s.by_position.begin(), s.by_position.end(), 0u);
    }
    if (!ranked.valid() || ranked != c.communicator[inst]) {
      ranked = c.communicator[inst];
      rank_of.assign(trace.locations().size(), UINT32_MAX);
      if (ranked.valid() && ranked.value < trace.communicators().size()) {
        const std::vector<LocationId>& members = trace.communicators()[ranked.value].members;
        for (uint32_t r = 0; r < members.size(); ++r)
          if (members[r].valid() && members[r].value < rank_of.size()) rank_of[members[r].value] = r;
      }
    }
    const auto first = s.by_position.begin() + c.first_member[inst], last = s.by_position.begin() + c.first_member[inst + 1];
    std::stable_sort(first, last, [&](uint32_t a, uint32_t b) {
      return rank_of[c.member_location[a].value] < rank_of[c.member_location[b].value];
    });
    for (auto it = first; it != last; ++it) s.position[*it] = static_cast<uint32_t>(it - first);
  }
}

}  // namespace

void HbStructure::BuildCollectives(const Trace& trace) {
  const size_t n = trace.locations().size();
  const CollectiveTable& c = trace.collectives();
  members_of.resize(n);
  instance_of.resize(c.member_location.size());
  root_member.assign(c.size(), kNoMember);
  for (uint32_t inst = 0; inst < c.size(); ++inst) {
    for (uint32_t m = c.first_member[inst]; m < c.first_member[inst + 1]; ++m) {
      instance_of[m] = inst;
      members_of[c.member_location[m].value].push_back(m);
      if (c.root[inst].valid() && c.member_location[m] == c.root[inst]) root_member[inst] = m;
    }
  }
  for (std::vector<uint32_t>& list : members_of) {
    std::sort(list.begin(), list.end(),
              [&](uint32_t a, uint32_t b) { return c.member_begin[a] < c.member_begin[b]; });
  }
  AddPrefixPositions(trace, *this);
}

HbGraph::HbGraph(const Trace& trace, unsigned parts)
    : trace_(trace), s_(trace.hb(parts)), location_count_(trace.locations().size()), offsets_(trace.flat_offsets().data()) {}

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
  return CollectiveFlow::Of(trace_.collectives().op[c.value], s_.root_member[c.value],
                            s_.position.empty() ? nullptr : s_.position.data());
}

bool HbGraph::end_has_inputs(uint32_t member) const { return flow(instance_of(member)).EndWaits(member); }

bool HbGraph::feeds(uint32_t from, uint32_t to) const { return flow(instance_of(from)).Feeds(from, to); }

CollectiveShape EffectiveShape(const HbGraph& g, CollectiveId c) { return g.flow(c).shape; }

}  // namespace grainscope
