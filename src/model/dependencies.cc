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

bool DependencyTargetWaits(DependencyKind kind) {
  switch (kind) {
    case DependencyKind::kLockHandover:
    case DependencyKind::kConditionSignal:
    case DependencyKind::kJoin:
    case DependencyKind::kGpuSync:
    case DependencyKind::kRendezvous:
    case DependencyKind::kOther:
      return true;
    case DependencyKind::kFork:
    case DependencyKind::kTaskCreate:
    case DependencyKind::kGpuLaunch:
      return false;
  }
  return true;
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
  // Edges in (location, event, row) order: bucketed by location, then each location's keys
  // (event << 32 | row) sorted as plain integers (an indirect comparison over three columns made
  // this sort a sixth of `critpath` on a million thread edges).
  std::vector<uint32_t> next(locations + 1, 0);
  for (uint32_t d = 0; d < table.size(); ++d) next[loc[d].value + 1]++;
  for (size_t l = 1; l < next.size(); ++l) next[l] += next[l - 1];
  const std::vector<uint32_t> bucket(next.begin(), next.end());
  std::vector<uint64_t> keys(table.size());
  for (uint32_t d = 0; d < table.size(); ++d) keys[next[loc[d].value]++] = uint64_t{ev[d]} << 32 | d;
  for (size_t l = 0; l < locations; ++l) std::sort(keys.begin() + bucket[l], keys.begin() + bucket[l + 1]);
  edges_.resize(table.size());
  for (size_t i = 0; i < keys.size(); ++i) edges_[i] = static_cast<uint32_t>(keys[i]);
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
