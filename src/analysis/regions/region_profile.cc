#include "analysis/regions/region_profile.h"

#include <algorithm>

#include "model/trace_index.h"

namespace grainscope {

TimeNs RegionStats::mean_ns() const {
  if (calls == 0) return 0;
  const auto n = static_cast<TimeNs>(calls);
  return (inclusive_ns + n / 2) / n;  // times are >= 0
}

void RegionStats::Add(TimeNs inclusive, TimeNs exclusive) {
  if (calls == 0 || inclusive < min_ns) min_ns = inclusive;
  if (calls == 0 || inclusive > max_ns) max_ns = inclusive;
  ++calls;
  inclusive_ns += inclusive;
  exclusive_ns += exclusive;
}

void RegionStats::Merge(const RegionStats& o) {
  if (o.calls == 0) return;
  if (calls == 0 || o.min_ns < min_ns) min_ns = o.min_ns;
  if (calls == 0 || o.max_ns > max_ns) max_ns = o.max_ns;
  calls += o.calls;
  inclusive_ns += o.inclusive_ns;
  exclusive_ns += o.exclusive_ns;
}

RegionProfile ComputeRegionProfile(const Trace& trace) {
  const std::vector<uint32_t> row_of = FirstRegionOfName(trace);
  struct Entry {
    uint32_t region;
    LocationId location;
    RegionStats stats;
  };
  std::vector<RegionStats> stats(trace.regions().size());  // of the current location
  std::vector<uint32_t> touched;
  std::vector<Entry> entries;
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    const EventColumns& ev = trace.events(LocationId(l));
    const CallNesting nesting = trace.index().nesting(LocationId(l));
    for (EventIndex i = 0; i < ev.size(); ++i) {
      // Exclusive time: each segment belongs to the call innermost during it (every call on the
      // location ends, so its region is touched below).
      const EventIndex open = i > 0 ? nesting.OpenAfter(i - 1) : kNoEvent;
      if (open != kNoEvent) stats[row_of[ev.arg[open]]].exclusive_ns += ev.time[i] - ev.time[i - 1];
      if (ev.kind[i] != EventKind::kLeave) continue;
      const uint32_t r = row_of[ev.arg[i]];
      RegionStats& s = stats[r];
      if (s.calls == 0) touched.push_back(r);
      s.Add(ev.time[i] - ev.time[nesting.EnterOf(i)], 0);
    }
    for (uint32_t r : touched) {
      entries.push_back({r, LocationId(l), stats[r]});
      stats[r] = RegionStats();
    }
    touched.clear();
  }
  // Group by region, locations in order within each (the entries are in location order).
  std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.region < b.region; });
  RegionProfile p;
  p.by_location.reserve(entries.size());
  for (size_t i = 0; i < entries.size(); ++i) {
    if (i == 0 || entries[i].region != entries[i - 1].region) {
      p.rows.push_back({RegionId(entries[i].region), {}, static_cast<uint32_t>(i), 0});
    }
    RegionProfileRow& row = p.rows.back();
    row.total.Merge(entries[i].stats);
    ++row.count;
    p.by_location.push_back({entries[i].location, entries[i].stats});
  }
  std::sort(p.rows.begin(), p.rows.end(), [](const RegionProfileRow& a, const RegionProfileRow& b) {
    if (a.total.exclusive_ns != b.total.exclusive_ns) return a.total.exclusive_ns > b.total.exclusive_ns;
    if (a.total.inclusive_ns != b.total.inclusive_ns) return a.total.inclusive_ns > b.total.inclusive_ns;
    return a.region < b.region;
  });
  return p;
}

std::vector<RoleProfileRow> ProfileByRole(const Trace& trace, const RegionProfile& profile) {
  std::vector<RoleProfileRow> rows(kRegionRoleCount);
  for (int r = 0; r < kRegionRoleCount; ++r) rows[r].role = static_cast<RegionRole>(r);
  for (const RegionProfileRow& row : profile.rows) {
    RoleProfileRow& to = rows[static_cast<int>(trace.region(row.region).role)];
    ++to.regions;
    to.calls += row.total.calls;
    to.exclusive_ns += row.total.exclusive_ns;
  }
  std::erase_if(rows, [](const RoleProfileRow& r) { return r.regions == 0; });
  std::stable_sort(rows.begin(), rows.end(),
                   [](const RoleProfileRow& a, const RoleProfileRow& b) { return a.exclusive_ns > b.exclusive_ns; });
  return rows;
}

}  // namespace grainscope
