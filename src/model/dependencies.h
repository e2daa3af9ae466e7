// Dependency edges: the happens-before edges between locations that are neither messages nor
// collectives (ARCHITECTURE.md, "Happens-before graph"): a lock's release -> its next acquire, a
// condition signal -> the wait it wakes, fork/create -> the child's first event, the child's
// last event -> join, task create -> task begin, GPU launch -> kernel/copy, event record -> event
// wait / stream synchronise, a receive posted -> the rendezvous send it lets complete. Each row
// points at two events that exist in the event columns; the
// edge says the `to` event could not happen before the `from` event.
//
// Messages and collectives keep their own tables (trace.h); this one holds everything else. Every
// analysis reads the three through the happens-before graph (hb_graph.h), so a new source of
// dependencies is a reader change (and a line in DependencyTargetWaits), not an analysis change.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "model/ids.h"

namespace grainscope {

enum class DependencyKind : uint8_t {
  kLockHandover = 0,     // release of a lock -> the next acquire of it
  kConditionSignal = 1,  // signal / notify -> the wait it ends
  kFork = 2,             // fork / thread create -> the child's first event
  kJoin = 3,             // the child's last event -> the join that returns
  kTaskCreate = 4,       // task create -> task begin
  kGpuLaunch = 5,        // kernel / copy launch on the host -> its execution on a GPU stream
  kGpuSync = 6,          // event record / stream work -> event wait, stream or device synchronise
  kOther = 7,
  kRendezvous = 8,       // a receive posted -> the rendezvous send it lets complete (rendezvous.h)
};
inline constexpr int kDependencyKindCount = 9;
std::string_view DependencyKindName(DependencyKind kind);
// What a kind means for waiting, declared once for every analysis: does the `to` location wait
// for the edge (blocked in a lock, a join, a device synchronise: its time before the target is
// waiting, a wait state), or does its work merely start once the edge allows (a forked thread, a
// task, a kernel after its launch: the time before is idle)? A new kind is added here, and every
// analysis reads it through the happens-before graph (hb_graph.h).
bool DependencyTargetWaits(DependencyKind kind);
// The kind named `name` (DependencyKindName), or false.
bool ParseDependencyKind(std::string_view name, DependencyKind* kind);

// One row per edge, column-wise, in the order the reader added them.
struct DependencyTable {
  std::vector<DependencyKind> kind;
  std::vector<LocationId> from_location;
  std::vector<EventIndex> from_event;
  std::vector<LocationId> to_location;
  std::vector<EventIndex> to_event;

  size_t size() const { return kind.size(); }
  bool empty() const { return kind.empty(); }
};

// The edges grouped by one of their ends: per location, the events that are that end of some
// edge ("ends"), in event order, each with its edge rows in row order. The sweeps walk a
// location's ends with a cursor, the way they meet messages: no per-event lookup.
class DependencyEnds {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  DependencyEnds() = default;
  // Groups `table`'s edges by their `to` ends (by_target) or their `from` ends.
  DependencyEnds(const DependencyTable& table, size_t locations, bool by_target);

  bool empty() const { return edges_.empty(); }
  size_t end_count() const { return event_.size(); }
  // The ends of location l are [first(l), last(l)).
  uint32_t first(LocationId l) const { return empty() ? 0 : first_end_[l.value]; }
  uint32_t last(LocationId l) const { return empty() ? 0 : first_end_[l.value + 1]; }
  EventIndex event(uint32_t end) const { return event_[end]; }
  std::span<const uint32_t> edges(uint32_t end) const {
    return std::span<const uint32_t>(edges_).subspan(first_edge_[end], first_edge_[end + 1] - first_edge_[end]);
  }
  // The end at event e of location l (binary search), or kNone.
  uint32_t Find(LocationId l, EventIndex e) const;

 private:
  std::vector<uint32_t> first_end_;   // per location, and one past the last
  std::vector<EventIndex> event_;     // per end
  std::vector<uint32_t> first_edge_;  // per end, and one past the last: into edges_
  std::vector<uint32_t> edges_;       // dependency rows
};

}  // namespace grainscope
