#include "analysis/accuracy/short_grains.h"

#include <fmt/format.h>

#include "model/metadata_keys.h"

namespace grainscope {
namespace {

constexpr TimeNs kShortNs = 1000;
constexpr uint64_t kManyInstances = 100;  // a region that matters to the profile, not a one-off

}  // namespace

std::optional<std::string> ShortGrainsNote(const Trace& trace, const std::vector<RegionSpans>& regions) {
  if (trace.Metadata(metadata::kClock) != "tsc") return std::nullopt;
  const RegionSpans* shortest = nullptr;
  for (const RegionSpans& r : regions) {
    if (r.instances < kManyInstances || r.total_ns >= kShortNs * static_cast<TimeNs>(r.instances)) continue;
    // Compares means without dividing: total_a / n_a < total_b / n_b.
    if (shortest == nullptr || static_cast<__int128>(r.total_ns) * shortest->instances <
                                   static_cast<__int128>(shortest->total_ns) * r.instances)
      shortest = &r;
  }
  if (shortest == nullptr) return std::nullopt;
  return fmt::format(
      "region '{}' lasts {} ns on average: with the plain TSC (clock 'tsc') regions under about 1 us may be "
      "recorded short, their ends stamped while their work is still in flight; record with "
      "GRAINSCOPE_CLOCK=tsc-ordered for exact times of tiny grains",
      shortest->name, shortest->total_ns / static_cast<TimeNs>(shortest->instances));
}

}  // namespace grainscope
