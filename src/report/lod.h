// Level of detail for the HTML Gantt chart (docs/html.md): a multi-resolution summary of each
// lane's intervals, so that a view of a huge trace draws one bar per pixel from a precomputed
// level instead of visiting every grain.
//
// Times are in quanta (the page's time unit, chosen so the trace's span fits in 32 bits). Level
// k splits the span [0, span) into `buckets` equal buckets per lane; each cell holds
//   busy    share of the bucket covered by intervals, 0..255 (255 = fully busy; any coverage >= 1)
//   length  LengthClass of the longest interval touching the bucket (0: none)
//   key     the key (region) of the interval covering most of the bucket
// The finest level is computed from the intervals; each coarser one merges 4 cells of the
// level below (busy averaged, longest length, key of the busiest child).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace grainscope {

struct QuantumInterval {
  uint32_t start = 0;  // quanta from the origin
  uint32_t dur = 0;    // quanta
  uint32_t key = 0;    // region id
};

struct LodLevel {
  uint32_t buckets = 0;          // per lane
  std::vector<uint8_t> busy;     // lanes x buckets, lane-major
  std::vector<uint8_t> length;   // lanes x buckets
  std::vector<uint32_t> key;     // lanes x buckets
};

// 0 for an empty duration, else 1 + round(8 log2(duration in ns)), at most 255: a log scale the
// page turns into a colour.
uint8_t LengthClass(double duration_ns);

// Levels from `finest` buckets per lane down to >= `coarsest` (each 4x coarser), coarsest first.
// `finest` must be coarsest * 4^k. Intervals of a lane must be sorted by start and disjoint.
std::vector<LodLevel> BuildLodPyramid(const std::vector<std::vector<QuantumInterval>>& lanes, uint64_t span,
                                      double quantum_ns, uint32_t finest, uint32_t coarsest);

// The summary of a layer drawn over the grains (wait states, blocked periods, critical-path
// stretches) when it holds too many intervals to embed: per lane, `buckets` cells of the share of
// each bucket its intervals cover, 0..255 as LodLevel::busy (any coverage at least 1). Intervals in
// any order; overlapping ones count once.
std::vector<uint8_t> CoverageCells(std::vector<std::vector<QuantumInterval>> lanes, uint64_t span, uint32_t buckets);

// The same for points (message sends, arrow starts): per lane, `buckets` cells of how many points
// fall in each bucket on a log scale, 0 for none, 1..255 up to the densest cell of all lanes.
std::vector<uint8_t> DensityCells(const std::vector<std::vector<uint32_t>>& lanes, uint64_t span, uint32_t buckets);

// Standard base64 (RFC 4648, with padding) of raw bytes: how the page carries typed arrays.
std::string Base64(const void* data, size_t size);
template <typename T>
std::string Base64(const std::vector<T>& v) {
  return Base64(v.data(), v.size() * sizeof(T));
}

}  // namespace grainscope
