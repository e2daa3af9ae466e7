#include "analysis/regions/gpu_time.h"

#include <algorithm>
#include <map>
#include <utility>

#include "analysis/regions/time_classes.h"
#include "model/region_roles.h"
#include "model/trace_index.h"

namespace grainscope {
namespace {

using Interval = std::pair<TimeNs, TimeNs>;

// `v` sorted and merged into disjoint intervals; returns their total length.
TimeNs Merge(std::vector<Interval>& v) {
  std::sort(v.begin(), v.end());
  size_t out = 0;
  for (const Interval& i : v) {
    if (out > 0 && i.first <= v[out - 1].second) {
      v[out - 1].second = std::max(v[out - 1].second, i.second);
    } else {
      v[out++] = i;
    }
  }
  v.resize(out);
  TimeNs total = 0;
  for (const Interval& i : v) total += i.second - i.first;
  return total;
}

// The length of the intersection of two merged interval lists.
TimeNs Intersection(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  TimeNs total = 0;
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const TimeNs lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo) total += hi - lo;
    (a[i].second < b[j].second) ? ++i : ++j;
  }
  return total;
}

struct RankWork {
  std::vector<Interval> compute, communication;
  GpuRankTime time;
};

// One stream's outermost work slices, into its row, its rank's intervals and the kernel table.
void AddStream(const Trace& t, LocationId l, const std::vector<uint32_t>& row_of, RankWork& rank,
               std::vector<KernelTime>& kernels, GpuStreamTime& row) {
  const EventColumns& ev = t.events(l);
  const CallNesting nesting = t.index().nesting(l);
  uint32_t depth = 0;  // open work slices
  for (EventIndex i = 0; i < ev.size(); ++i) {
    if (ev.kind[i] != EventKind::kEnter && ev.kind[i] != EventKind::kLeave) continue;
    const RegionRole role = t.region(RegionId(ev.arg[i])).role;
    if (RegionTimeClass(t, RegionId(ev.arg[i])) != TimeClass::kGpu) continue;  // work: kernels, copies, memsets
    if (ev.kind[i] == EventKind::kEnter) {
      ++depth;
      continue;
    }
    if (--depth > 0) continue;
    const TimeNs begin = ev.time[nesting.EnterOf(i)], d = ev.time[i] - begin;
    KernelTime& k = kernels[row_of[ev.arg[i]]];
    ++k.count;
    k.total_ns += d;
    k.max_ns = std::max(k.max_ns, d);
    if (role == RegionRole::kCommCollective) {
      row.communication_ns += d;
      rank.communication.emplace_back(begin, ev.time[i]);
    } else {
      (role == RegionRole::kGpuKernel ? row.compute_ns : row.copy_ns) += d;
      rank.compute.emplace_back(begin, ev.time[i]);
    }
  }
}

// A CPU thread's outermost launch calls.
void AddLaunches(const Trace& t, LocationId l, GpuRankTime& rank) {
  const EventColumns& ev = t.events(l);
  const CallNesting nesting = t.index().nesting(l);
  uint32_t depth = 0;
  for (EventIndex i = 0; i < ev.size(); ++i) {
    if (ev.kind[i] != EventKind::kEnter && ev.kind[i] != EventKind::kLeave) continue;
    if (t.region(RegionId(ev.arg[i])).role != RegionRole::kGpuLaunch) continue;
    if (ev.kind[i] == EventKind::kEnter) {
      ++depth;
    } else if (--depth == 0) {
      ++rank.launches;
      rank.launch_ns += ev.time[i] - ev.time[nesting.EnterOf(i)];
    }
  }
}

}  // namespace

GpuTime ComputeGpuTime(const Trace& t) {
  GpuTime out;
  out.span_ns = t.end_ns() - t.start_ns();
  std::vector<KernelTime> kernels(t.regions().size());  // by the first region of each name and role
  const std::vector<uint32_t> row_of = FirstRegionOfName(t);
  std::map<uint32_t, RankWork> ranks;  // by process
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const Location& loc = t.location(LocationId(l));
    if (loc.kind != LocationKind::kGpuStream) continue;
    RankWork& rank = ranks[loc.group];
    ++rank.time.streams;
    GpuStreamTime& row = out.streams.emplace_back();
    row.stream = LocationId(l);
    AddStream(t, LocationId(l), row_of, rank, kernels, row);
    out.work_ns += row.busy_ns();
  }
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const Location& loc = t.location(LocationId(l));
    auto it = ranks.find(loc.group);
    if (loc.kind != LocationKind::kGpuStream && it != ranks.end()) AddLaunches(t, LocationId(l), it->second.time);
  }
  for (auto& [process, w] : ranks) {
    GpuRankTime& r = w.time;
    r.process = LocationId(process);
    std::vector<Interval> all = w.compute;
    all.insert(all.end(), w.communication.begin(), w.communication.end());
    r.busy_ns = Merge(all);
    r.compute_ns = Merge(w.compute);
    r.communication_ns = Merge(w.communication);
    r.overlapped_ns = Intersection(w.compute, w.communication);
    r.idle_ns = out.span_ns - r.busy_ns;
    out.ranks.push_back(r);
  }
  for (uint32_t r = 0; r < kernels.size(); ++r) {
    if (kernels[r].count == 0) continue;
    kernels[r].region = RegionId(r);
    out.kernels.push_back(kernels[r]);
  }
  std::stable_sort(out.kernels.begin(), out.kernels.end(),
                   [](const KernelTime& a, const KernelTime& b) { return a.total_ns > b.total_ns; });
  return out;
}

}  // namespace grainscope
