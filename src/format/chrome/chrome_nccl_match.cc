#include "format/chrome/chrome_nccl_match.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <tuple>

#include <fmt/format.h>

namespace grainscope::chrome {
namespace {

constexpr TimeNs kMinTolerance = 100'000;  // 100 us
constexpr int64_t kTolerancePercent = 2;

struct Kernel {
  TimeNs begin, end;
  uint32_t part, row;
};

// The kernels of one (key, op) in end order, clustered; returns how many clusters it made.
uint32_t Cluster(std::vector<Kernel>& kernels, std::vector<TracePart>& parts, uint32_t next, uint64_t* matched) {
  std::sort(kernels.begin(), kernels.end(), [](const Kernel& a, const Kernel& b) {
    return std::tie(a.end, a.part, a.row) < std::tie(b.end, b.part, b.row);
  });
  std::vector<bool> taken(kernels.size(), false);
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (taken[i]) continue;
    std::vector<size_t> cluster = {i};
    TimeNs shortest = kernels[i].end - kernels[i].begin;
    for (size_t j = i + 1; j < kernels.size(); ++j) {
      const Kernel& k = kernels[j];
      shortest = std::min(shortest, k.end - k.begin);
      const TimeNs tolerance = std::max(kMinTolerance, shortest * kTolerancePercent / 100);
      if (k.end - kernels[i].end > tolerance) break;
      const bool part_in = std::any_of(cluster.begin(), cluster.end(), [&](size_t c) { return kernels[c].part == k.part; });
      if (taken[j] || part_in || k.begin > kernels[i].end) continue;
      cluster.push_back(j);
    }
    for (size_t c : cluster) {
      taken[c] = true;
      parts[kernels[c].part].collectives[kernels[c].row].sequence = next;
    }
    if (cluster.size() > 1) *matched += cluster.size();
    ++next;
  }
  return next;
}

}  // namespace

void MatchCollectivesByTime(std::vector<TracePart>& parts, Diagnostics& notes, std::string_view path) {
  std::map<std::pair<std::string, CollectiveOp>, std::vector<Kernel>> groups;
  uint64_t total = 0;
  for (uint32_t p = 0; p < parts.size(); ++p) {
    const Trace& t = parts[p].trace;
    const CollectiveTable& ct = t.collectives();
    for (uint32_t c = 0; c < parts[p].collectives.size() && c < ct.size(); ++c) {
      const PartCollective& pc = parts[p].collectives[c];
      if (pc.sequence_known || pc.communicator.empty() || ct.member_count(CollectiveId(c)) != 1) continue;
      const uint32_t m = ct.first_member[c];
      const EventColumns& ev = t.events(ct.member_location[m]);
      groups[{pc.communicator, ct.op[c]}].push_back(
          Kernel{parts[p].clock(ev.time[ct.member_begin[m]]), parts[p].clock(ev.time[ct.member_end[m]]), p, c});
      ++total;
    }
  }
  if (total == 0) return;
  uint64_t matched = 0;
  std::map<std::string, uint32_t> next;  // per key: sequence numbers stay unique across its ops
  for (auto& [key, kernels] : groups) next[key.first] = Cluster(kernels, parts, next[key.first], &matched);
  notes.AddCount(Diag::kCollectivesMatchedByTime, total,
                 fmt::format("{}: {} of the {} kernels matched a kernel of another rank; the other {} are "
                             "operations of one rank here (their partners are in files not given, or outside "
                             "this rank's profiling window)",
                             path, matched, total, total - matched));
}

namespace {

// Per part, the end (in its clock) of each all-to-all operation it holds, by (key, sequence).
std::vector<std::map<std::pair<std::string, uint32_t>, TimeNs>> OperationEnds(const std::vector<TracePart>& parts) {
  std::vector<std::map<std::pair<std::string, uint32_t>, TimeNs>> ends(parts.size());
  for (uint32_t p = 0; p < parts.size(); ++p) {
    const Trace& t = parts[p].trace;
    const CollectiveTable& ct = t.collectives();
    for (uint32_t c = 0; c < parts[p].collectives.size() && c < ct.size(); ++c) {
      const PartCollective& pc = parts[p].collectives[c];
      if (pc.communicator.empty() || ct.member_count(CollectiveId(c)) != 1) continue;
      if (ShapeOf(ct.op[c]) != CollectiveShape::kAllToAll && ct.op[c] != CollectiveOp::kOther) continue;
      const uint32_t m = ct.first_member[c];
      ends[p][{pc.communicator, pc.sequence}] = parts[p].clock(t.events(ct.member_location[m]).time[ct.member_end[m]]);
    }
  }
  return ends;
}

}  // namespace

void AlignClocksOnCollectives(std::vector<TracePart>& parts, Diagnostics& notes, std::string_view path) {
  const auto ends = OperationEnds(parts);
  size_t reference = 0;
  while (reference < parts.size() && ends[reference].empty()) ++reference;
  if (reference == parts.size()) return;
  uint64_t moved = 0;
  std::string example;
  for (size_t p = reference + 1; p < parts.size(); ++p) {
    std::vector<TimeNs> offsets;
    for (const auto& [op, end] : ends[p])
      if (auto r = ends[reference].find(op); r != ends[reference].end()) offsets.push_back(r->second - end);
    if (offsets.empty()) continue;
    std::nth_element(offsets.begin(), offsets.begin() + offsets.size() / 2, offsets.end());
    const TimeNs offset = offsets[offsets.size() / 2];
    if (std::llabs(offset) <= kMinTolerance) continue;
    parts[p].clock.base += offset;
    if (moved++ == 0) {
      example = fmt::format("{}: rank {} moved by {} ns onto rank {}'s clock (the median over {} operations)", path,
                            parts[p].rank, offset, parts[reference].rank, offsets.size());
    }
  }
  notes.AddCount(Diag::kClocksAligned, moved, example);
}

}  // namespace grainscope::chrome
