#include "model/barrier_release.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <utility>

namespace grainscope {
namespace {

// Per location, the events a fork edge leads to with the fork's time, in event order: flat
// vectors and a binary search (a trace of 600 K OpenMP teams has 1.8 M fork edges; a hash map of
// them cost BT-MZ's load 50 ms).
using ForkTimes = std::vector<std::vector<std::pair<EventIndex, TimeNs>>>;
ForkTimes ForkTimesOf(const DependencyTable& edges, std::span<const std::vector<TimeNs>> times) {
  ForkTimes fork_at(times.size());
  for (size_t r = 0; r < edges.size(); ++r) {
    if (edges.kind[r] != DependencyKind::kFork) continue;
    fork_at[edges.to_location[r].value].emplace_back(edges.to_event[r],
                                                     times[edges.from_location[r].value][edges.from_event[r]]);
  }
  for (auto& forks : fork_at)
    if (!std::is_sorted(forks.begin(), forks.end())) std::sort(forks.begin(), forks.end());
  return fork_at;
}

bool IsSync(const SyncTable& syncs, EventKind kind, uint32_t arg, SyncKind want) {
  return kind == EventKind::kSync && syncs.kind[arg] == want;
}

// The fork time of event `j` of a location (`forks` its ForkTimes), or nullopt. Instances come
// in about time order, so a cursor per location usually finds it in a step or two.
std::optional<TimeNs> ForkTimeAt(const std::vector<std::pair<EventIndex, TimeNs>>& forks, size_t& cursor,
                                 EventIndex j) {
  if (cursor >= forks.size() || forks[cursor].first > j) {
    cursor = std::lower_bound(forks.begin(), forks.end(), std::make_pair(j, std::numeric_limits<TimeNs>::min())) -
             forks.begin();
  }
  while (cursor < forks.size() && forks[cursor].first < j) ++cursor;
  if (cursor < forks.size() && forks[cursor].first == j) return forks[cursor].second;
  return std::nullopt;
}

// One past the last event that closes member `m`'s barrier (its leave, then region and thread
// ends), when the event there begins a thread forked at or before the leave; else 0.
EventIndex LateEndRun(const ThreadSync::Member& m, const SyncTable& syncs, const std::vector<EventKind>& kind,
                      const std::vector<uint32_t>& arg, const std::vector<TimeNs>& time,
                      const std::vector<std::pair<EventIndex, TimeNs>>& forks, size_t& cursor) {
  EventIndex j = m.leave + 1;
  while (j < kind.size() && (kind[j] == EventKind::kLeave || IsSync(syncs, kind[j], arg[j], SyncKind::kThreadEnd))) ++j;
  if (j == kind.size() || !IsSync(syncs, kind[j], arg[j], SyncKind::kThreadBegin)) return 0;
  const std::optional<TimeNs> fork = ForkTimeAt(forks, cursor, j);
  return fork && *fork <= time[m.leave] ? j : 0;
}

}  // namespace

TimeNs BarrierRelease(TimeNs last_arrival, TimeNs earliest_on_time_leave) {
  return earliest_on_time_leave == std::numeric_limits<TimeNs>::max() ? last_arrival
                                                                      : std::max(earliest_on_time_leave, last_arrival);
}

LateBarrierEnds MoveLateBarrierEnds(const ThreadSync& sync, const SyncTable& syncs,
                                    std::span<const std::vector<EventKind>> kinds,
                                    std::span<const std::vector<uint32_t>> args,
                                    std::span<std::vector<TimeNs>> times) {
  LateBarrierEnds out;
  if (sync.barriers.empty()) return out;
  const ForkTimes fork_at = ForkTimesOf(sync.edges, times);
  std::vector<size_t> cursor(times.size(), 0);
  std::vector<EventIndex> late_end;  // per member of the instance: LateEndRun
  for (const ThreadSync::Barrier& b : sync.barriers) {
    late_end.assign(b.members.size(), 0);
    TimeNs last_arrival = std::numeric_limits<TimeNs>::min();
    TimeNs release = std::numeric_limits<TimeNs>::max();
    bool any_late = false;
    for (size_t i = 0; i < b.members.size(); ++i) {
      const ThreadSync::Member& m = b.members[i];
      const uint32_t l = m.location.value;
      last_arrival = std::max(last_arrival, times[l][m.enter]);
      late_end[i] = LateEndRun(m, syncs, kinds[l], args[l], times[l], fork_at[l], cursor[l]);
      if (late_end[i] == 0) release = std::min(release, times[l][m.leave]);
      any_late |= late_end[i] != 0;
    }
    if (!any_late) continue;
    release = BarrierRelease(last_arrival, release);
    for (size_t i = 0; i < b.members.size(); ++i) {
      if (late_end[i] == 0) continue;
      const ThreadSync::Member& m = b.members[i];
      std::vector<TimeNs>& time = times[m.location.value];
      const TimeNs to = std::max(release, m.leave > 0 ? time[m.leave - 1] : release);
      const TimeNs from = time[m.leave];
      if (to >= from) continue;
      if (out.moved++ == 0) out.first_location = m.location, out.first_from = from, out.first_to = to;
      out.moved_ns += from - to;
      for (EventIndex e = m.leave; e < late_end[i]; ++e) time[e] = to;
    }
  }
  return out;
}

}  // namespace grainscope
