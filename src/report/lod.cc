#include "report/lod.h"

#include <algorithm>
#include <cmath>

namespace grainscope {

uint8_t LengthClass(double duration_ns) {
  if (duration_ns <= 0) return 0;
  const double c = 1.0 + std::round(8.0 * std::log2(std::max(1.0, duration_ns)));
  return static_cast<uint8_t>(std::min(255.0, c));
}

namespace {

// The finest level, straight from the intervals. `cover` is the time each cell's best key
// covers, to pick the key of the interval covering most of the bucket.
LodLevel FinestLevel(const std::vector<std::vector<QuantumInterval>>& lanes, uint64_t span, double quantum_ns,
                     uint32_t buckets) {
  LodLevel level;
  level.buckets = buckets;
  const size_t cells = lanes.size() * buckets;
  level.busy.assign(cells, 0);
  level.length.assign(cells, 0);
  level.key.assign(cells, 0);
  std::vector<double> covered(cells, 0), best(cells, 0);
  const double width = static_cast<double>(std::max<uint64_t>(span, 1)) / buckets;  // quanta per bucket
  for (size_t lane = 0; lane < lanes.size(); ++lane) {
    const size_t row = lane * buckets;
    for (const QuantumInterval& iv : lanes[lane]) {
      const double a = iv.start, b = static_cast<double>(iv.start) + iv.dur;
      const uint32_t first = std::min<uint32_t>(buckets - 1, static_cast<uint32_t>(a / width));
      // An interval ending on a bucket's start does not reach into it (an instant stays in its own).
      const uint32_t last = iv.dur == 0 ? first
                                        : std::max(first, std::min<uint32_t>(buckets - 1, static_cast<uint32_t>(std::ceil(b / width)) - 1));
      const uint8_t len = LengthClass(iv.dur * quantum_ns);
      for (uint32_t c = first; c <= last; ++c) {
        const double part = std::min(b, (c + 1) * width) - std::max(a, c * width);
        const size_t cell = row + c;
        covered[cell] += std::max(0.0, part);
        if (level.length[cell] == 0 || part > best[cell]) {  // first touch, or covers more
          best[cell] = part;
          level.key[cell] = iv.key;
        }
        level.length[cell] = std::max(level.length[cell], std::max<uint8_t>(len, 1));
      }
    }
  }
  for (size_t cell = 0; cell < cells; ++cell) {
    if (level.length[cell] == 0) continue;
    const double share = std::min(1.0, covered[cell] / width);
    level.busy[cell] = static_cast<uint8_t>(std::clamp(std::round(share * 255.0), 1.0, 255.0));
  }
  return level;
}

LodLevel Coarsen(const LodLevel& fine, size_t lanes) {
  LodLevel level;
  level.buckets = fine.buckets / 4;
  const size_t cells = lanes * level.buckets;
  level.busy.assign(cells, 0);
  level.length.assign(cells, 0);
  level.key.assign(cells, 0);
  for (size_t lane = 0; lane < lanes; ++lane) {
    for (uint32_t c = 0; c < level.buckets; ++c) {
      const size_t cell = lane * level.buckets + c;
      const size_t child = lane * fine.buckets + 4 * static_cast<size_t>(c);
      unsigned sum = 0, most = 0;
      for (size_t k = child; k < child + 4; ++k) {
        sum += fine.busy[k];
        level.length[cell] = std::max(level.length[cell], fine.length[k]);
        if (fine.length[k] != 0 && (fine.busy[k] > most || most == 0)) {
          most = std::max<unsigned>(most, fine.busy[k]);
          level.key[cell] = fine.key[k];
        }
      }
      if (level.length[cell] != 0) level.busy[cell] = static_cast<uint8_t>(std::max(1u, (sum + 2) / 4));
    }
  }
  return level;
}

}  // namespace

std::vector<LodLevel> BuildLodPyramid(const std::vector<std::vector<QuantumInterval>>& lanes, uint64_t span,
                                      double quantum_ns, uint32_t finest, uint32_t coarsest) {
  std::vector<LodLevel> levels;
  if (lanes.empty() || finest == 0) return levels;
  levels.push_back(FinestLevel(lanes, span, quantum_ns, finest));
  while (levels.back().buckets / 4 >= std::max<uint32_t>(coarsest, 1) && levels.back().buckets % 4 == 0)
    levels.push_back(Coarsen(levels.back(), lanes.size()));
  std::reverse(levels.begin(), levels.end());
  return levels;
}

std::vector<uint8_t> CoverageCells(std::vector<std::vector<QuantumInterval>> lanes, uint64_t span, uint32_t buckets) {
  // Each lane's intervals as their union: sorted and disjoint, as FinestLevel takes them.
  for (std::vector<QuantumInterval>& lane : lanes) {
    std::sort(lane.begin(), lane.end(), [](const QuantumInterval& a, const QuantumInterval& b) { return a.start < b.start; });
    std::vector<QuantumInterval> merged;
    for (const QuantumInterval& iv : lane) {
      const uint64_t end = uint64_t{iv.start} + iv.dur;
      if (!merged.empty() && iv.start <= uint64_t{merged.back().start} + merged.back().dur) {
        QuantumInterval& last = merged.back();
        last.dur = static_cast<uint32_t>(std::max<uint64_t>(uint64_t{last.start} + last.dur, end) - last.start);
      } else {
        merged.push_back(iv);
      }
    }
    lane = std::move(merged);
  }
  if (lanes.empty() || buckets == 0) return {};
  return std::move(FinestLevel(lanes, span, 1.0, buckets).busy);
}

std::vector<uint8_t> DensityCells(const std::vector<std::vector<uint32_t>>& lanes, uint64_t span, uint32_t buckets) {
  std::vector<uint32_t> count(lanes.size() * buckets, 0);
  const double width = static_cast<double>(std::max<uint64_t>(span, 1)) / std::max<uint32_t>(buckets, 1);
  for (size_t lane = 0; lane < lanes.size(); ++lane)
    for (uint32_t t : lanes[lane]) ++count[lane * buckets + std::min<uint32_t>(buckets - 1, static_cast<uint32_t>(t / width))];
  const uint32_t most = count.empty() ? 0 : *std::max_element(count.begin(), count.end());
  std::vector<uint8_t> cells(count.size(), 0);
  for (size_t i = 0; i < count.size(); ++i)
    if (count[i] > 0) cells[i] = static_cast<uint8_t>(1 + std::lround(254.0 * std::log1p(count[i]) / std::log1p(most)));
  return cells;
}

std::string Base64(const void* data, size_t size) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const auto* p = static_cast<const unsigned char*>(data);
  std::string out;
  out.reserve((size + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 2 < size; i += 3) {
    const uint32_t v = (uint32_t{p[i]} << 16) | (uint32_t{p[i + 1]} << 8) | p[i + 2];
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  if (i < size) {
    uint32_t v = uint32_t{p[i]} << 16;
    if (i + 1 < size) v |= uint32_t{p[i + 1]} << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += i + 1 < size ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

}  // namespace grainscope
