#include "analysis/waits/completion_order.h"

#include <algorithm>
#include <tuple>

namespace grainscope {

std::vector<uint32_t> CompletionOrder(const std::vector<WaitInstance>& waits) {
  // (end, not-nested, waiter, index): sorting these tuples reads each wait once.
  struct Key {
    TimeNs end;
    uint8_t outer;  // 0: its waiter is late in another wait ending at `end`
    uint32_t waiter, index;
    bool operator<(const Key& o) const { return std::tie(end, outer, waiter, index) < std::tie(o.end, o.outer, o.waiter, o.index); }
  };
  std::vector<Key> keys;
  for (uint32_t k = 0; k < waits.size(); ++k)
    if (waits[k].late.valid()) keys.push_back({waits[k].start_ns + waits[k].wait_ns, 1, waits[k].waiter.value, k});
  std::sort(keys.begin(), keys.end());
  // Per run of equal ends, the late locations, sorted; then each wait's waiter looked up in them
  // (a run of n waits costs n log n, not n^2: a barrier of many ranks ends for all at once).
  std::vector<uint32_t> late;
  for (size_t i = 0; i < keys.size();) {
    size_t j = i;
    while (j < keys.size() && keys[j].end == keys[i].end) ++j;
    if (j - i > 1) {
      late.clear();
      for (size_t x = i; x < j; ++x) late.push_back(waits[keys[x].index].late.value);
      std::sort(late.begin(), late.end());
      for (size_t x = i; x < j; ++x)
        keys[x].outer = std::binary_search(late.begin(), late.end(), keys[x].waiter) ? 0 : 1;
      std::sort(keys.begin() + static_cast<std::ptrdiff_t>(i), keys.begin() + static_cast<std::ptrdiff_t>(j));
    }
    i = j;
  }
  std::vector<uint32_t> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) out[i] = keys[i].index;
  return out;
}

}  // namespace grainscope
