// The characterisation's sparse step vectors: a path or characterisation as (step id, signed
// ns) pairs sorted by step id, kept in flat pools addressed by Range, and their merges.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "model/timeline.h"

namespace grainscope::steps {

// A path or characterisation: (step id, signed ns) sorted by step id. Step id = slot * states +
// state, with slot = region index, or the region count for "outside any region". Paths and
// characterisations live in a few flat pools addressed by Range, not in one vector per wait.
using Entry = std::pair<uint32_t, TimeNs>;
using Sparse = std::vector<Entry>;
using View = std::span<const Entry>;

// Where paths and characterisations are kept: fixed chunks, each filled and never grown, so the
// pool never copies what it holds to grow (one vector of a million explanations, doubling, held
// three times their size at the moment of its copy) and keeps at most one chunk's worth unused.
// A stored range lies within one chunk.
class Pool;
struct Range {
  uint32_t chunk = 0;
  uint32_t offset = 0;
  uint32_t size = 0;
  inline View in(const Pool& pool) const;
};

class Pool {
 public:
  static constexpr size_t kChunkEntries = size_t{1} << 20;  // 16 MB

  // Appends `v`; returns where it went.
  Range Store(View v) {
    if (chunks_.empty() || chunks_.back().capacity() - chunks_.back().size() < v.size()) {
      chunks_.emplace_back();
      chunks_.back().reserve(std::max(kChunkEntries, v.size()));
    }
    Sparse& c = chunks_.back();
    const Range r{static_cast<uint32_t>(chunks_.size() - 1), static_cast<uint32_t>(c.size()),
                  static_cast<uint32_t>(v.size())};
    c.insert(c.end(), v.begin(), v.end());
    return r;
  }
  View at(const Range& r) const { return View(chunks_[r.chunk].data() + r.offset, r.size); }
  // Forgets everything stored; keeps the first chunk's memory for what comes next.
  void Clear() {
    chunks_.resize(std::min<size_t>(chunks_.size(), 1));
    if (!chunks_.empty()) chunks_[0].clear();
  }

 private:
  std::vector<Sparse> chunks_;
};

inline View Range::in(const Pool& pool) const { return pool.at(*this); }

// Appends `v` to `pool`; returns where it went.
inline Range Store(Pool& pool, View v) { return pool.Store(v); }

// out = a - b, both sorted by step; equal steps cancel.
inline void Subtract(View a, View b, Sparse& out) {
  out.clear();
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      out.push_back({b[j].first, -b[j].second});
      ++j;
    } else {
      if (a[i].second != b[j].second) out.push_back({a[i].first, a[i].second - b[j].second});
      ++i;
      ++j;
    }
  }
}

// sums += c, both sorted by step. Steps whose sum cancels to 0 stay listed (a class reports
// every step any member had).
inline void AddInto(Sparse& sums, View c, Sparse& scratch) {
  scratch.clear();
  size_t i = 0, j = 0;
  while (i < sums.size() || j < c.size()) {
    if (j == c.size() || (i < sums.size() && sums[i].first < c[j].first)) scratch.push_back(sums[i++]);
    else if (i == sums.size() || c[j].first < sums[i].first) scratch.push_back(c[j++]);
    else {
      scratch.push_back({sums[i].first, sums[i].second + c[j].second});
      ++i;
      ++j;
    }
  }
  sums.swap(scratch);
}

}  // namespace grainscope::steps
