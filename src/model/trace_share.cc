#include "model/trace_share.h"

#include <unordered_map>

namespace grainscope {

std::vector<LocationSet> ShareLocations(std::span<const uint32_t> process_of, std::span<const uint64_t> events,
                                        uint32_t count) {
  // The processes in order of their first location, with their event counts.
  std::unordered_map<uint32_t, uint32_t> index;
  std::vector<uint32_t> nth(process_of.size());  // per location: its process's position
  std::vector<uint64_t> process_events;
  for (size_t l = 0; l < process_of.size(); ++l) {
    auto [it, added] = index.try_emplace(process_of[l], static_cast<uint32_t>(process_events.size()));
    if (added) process_events.push_back(0);
    nth[l] = it->second;
    process_events[it->second] += events[l];
  }
  uint64_t total = 0;
  for (uint64_t e : process_events) total += e;
  // Per process, its share: one at least while any is left, then processes until the share's
  // part of the events, leaving one for each share after it.
  const size_t processes = process_events.size();
  std::vector<uint32_t> share_of(processes, 0);
  size_t p = 0;
  uint64_t before = 0;
  for (uint32_t k = 0; k < count; ++k) {
    const uint64_t target = static_cast<uint64_t>(static_cast<unsigned __int128>(total) * (k + 1) / count);
    const size_t after = count - k - 1;
    bool took = false;
    while (p < processes && (!took || (before < target && processes - p > after) || after == 0)) {
      before += process_events[p];
      share_of[p++] = k;
      took = true;
    }
  }
  std::vector<LocationSet> out(count);
  for (LocationSet& s : out) s.member.assign(process_of.size(), 0);
  for (size_t l = 0; l < process_of.size(); ++l) out[share_of[nth[l]]].member[l] = 1;
  return out;
}

}  // namespace grainscope
