#include "model/dependencies.h"

#include <algorithm>
#include <tuple>

namespace grainscope {

std::string_view DependencyKindName(DependencyKind kind) {
  switch (kind) {
    case DependencyKind::kLockHandover: return "lock_handover";
    case DependencyKind::kConditionSignal: return "condition_signal";
    case DependencyKind::kFork: return "fork";
    case DependencyKind::kJoin: return "join";
    case DependencyKind::kTaskCreate: return "task_create";
    case DependencyKind::kGpuLaunch: return "gpu_launch";
    case DependencyKind::kGpuSync: return "gpu_sync";
    case DependencyKind::kOther: return "other";
    case DependencyKind::kRendezvous: return "rendezvous";
  }
  return "other";
}

bool ParseDependencyKind(std::string_view name, DependencyKind* kind) {
  for (int k = 0; k < kDependencyKindCount; ++k) {
    if (DependencyKindName(static_cast<DependencyKind>(k)) == name) {
      *kind = static_cast<DependencyKind>(k);
      return true;
    }
  }
  return false;
}

DependencyEnds::DependencyEnds(const DependencyTable& table, size_t locations, bool by_target) {
  if (table.empty()) return;
  const std::vector<LocationId>& loc = by_target ? table.to_location : table.from_location;
  const std::vector<EventIndex>& ev = by_target ? table.to_event : table.from_event;
  edges_.resize(table.size());
  for (uint32_t d = 0; d < edges_.size(); ++d) edges_[d] = d;
  std::sort(edges_.begin(), edges_.end(), [&](uint32_t a, uint32_t b) {
    return std::tie(loc[a].value, ev[a], a) < std::tie(loc[b].value, ev[b], b);
  });
  first_end_.assign(locations + 1, 0);
  for (uint32_t i = 0; i < edges_.size(); ++i) {
    const uint32_t d = edges_[i];
    if (i > 0 && loc[edges_[i - 1]] == loc[d] && ev[edges_[i - 1]] == ev[d]) continue;
    event_.push_back(ev[d]);
    first_edge_.push_back(i);
    first_end_[loc[d].value + 1]++;
  }
  first_edge_.push_back(static_cast<uint32_t>(edges_.size()));
  for (size_t l = 1; l < first_end_.size(); ++l) first_end_[l] += first_end_[l - 1];
}

uint32_t DependencyEnds::Find(LocationId l, EventIndex e) const {
  const auto begin = event_.begin() + first(l), end = event_.begin() + last(l);
  const auto it = std::lower_bound(begin, end, e);
  return it != end && *it == e ? static_cast<uint32_t>(it - event_.begin()) : kNone;
}

}  // namespace grainscope
