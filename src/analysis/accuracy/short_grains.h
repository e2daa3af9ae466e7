// Whether a trace's clock can be trusted with the grains it holds. The plain TSC (clock "tsc")
// stamps a region's end while the region's work may still be in flight on an out-of-order core,
// so regions under about a microsecond are recorded short, by up to their whole length
// (docs/recording.md, "Timestamps and out-of-order execution"). The ordered TSC and
// CLOCK_MONOTONIC do not; traces from other tools say nothing and get no note.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace grainscope {

// One region's instances, as an analysis summed them.
struct RegionSpans {
  std::string_view name;
  uint64_t instances = 0;
  TimeNs total_ns = 0;
};

// A note naming the shortest region with at least 100 instances that averages under 1 µs, when
// the trace was recorded with the plain TSC; nothing otherwise.
std::optional<std::string> ShortGrainsNote(const Trace& trace, const std::vector<RegionSpans>& regions);

}  // namespace grainscope
