#include "analysis/waits/sync_events.h"

#include <algorithm>

namespace grainscope {

std::vector<std::vector<SyncEvent>> SyncEventsByLocation(const Trace& t, const HbGraph& g) {
  const CollectiveTable& coll = t.collectives();
  std::vector<std::vector<SyncEvent>> out(t.locations().size());
  // Sized exactly first: a thread trace has millions of fork, join and lock edges.
  std::vector<uint32_t> count(out.size(), 0);
  g.ForEachPointEdge([&](const PointEdge& e) { ++count[e.from.value], ++count[e.to.value]; });
  for (LocationId l : coll.member_location) ++count[l.value];
  for (size_t l = 0; l < out.size(); ++l) out[l].reserve(count[l]);
  g.ForEachPointEdge([&](const PointEdge& e) {
    out[e.from.value].push_back({e.from_event, EventKind::kSend, e.to.value, e.to_event});
    out[e.to.value].push_back({e.to_event, EventKind::kRecv, e.from.value, e.from_event});
  });
  for (uint32_t k = 0; k < coll.member_location.size(); ++k)
    out[coll.member_location[k].value].push_back({coll.member_end[k], EventKind::kCollEnd});
  for (std::vector<SyncEvent>& list : out)
    std::sort(list.begin(), list.end(), [](const SyncEvent& a, const SyncEvent& b) { return a.event < b.event; });
  return out;
}

uint32_t MemberOf(const CollectiveTable& coll, CollectiveId c, LocationId l) {
  auto first = coll.member_location.begin() + coll.first_member[c.value];
  auto last = coll.member_location.begin() + coll.first_member[c.value + 1];
  auto it = std::lower_bound(first, last, l);
  return it != last && *it == l ? static_cast<uint32_t>(it - coll.member_location.begin()) : UINT32_MAX;
}

}  // namespace grainscope
