// The late paths the characterisation computes once per (location, from, to): an open-addressing
// hash table in one array. std::unordered_map allocated and freed a node per path, which on a
// thread trace (hundreds of thousands of paths) cost a tenth of `waits` in the allocator.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "analysis/waits/sparse_steps.h"
#include "model/ids.h"

namespace grainscope {

struct PathKey {
  uint32_t location;
  EventIndex from, to;
  bool operator==(const PathKey&) const = default;
};

// Key -> Value, linear probing over 16-byte slots (the key and the value's index), at most 3/4
// full; the values in a vector of their own. A value stays where it is until the next
// TryEmplace. Keys must not use location UINT32_MAX (it marks an empty slot).
template <typename Value>
class PathCache {
 public:
  // The value of `key`, and true when it was added now (value-initialised) rather than found.
  std::pair<Value*, bool> TryEmplace(const PathKey& key) {
    if ((values_.size() + 1) * 4 > slots_.size() * 3) Grow();
    const uint32_t i = Find(key);
    if (slots_[i].key.location != kEmpty) return {&values_[slots_[i].index], false};
    slots_[i] = Slot{key, static_cast<uint32_t>(values_.size())};
    values_.emplace_back();
    return {&values_.back(), true};
  }
  size_t size() const { return values_.size(); }
  // Forgets every key, keeping the table's size (the next keys are as many).
  void Clear() {
    std::fill(slots_.begin(), slots_.end(), Slot{});
    values_.clear();
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    PathKey key{kEmpty, 0, 0};
    uint32_t index = 0;
  };

  static size_t Hash(const PathKey& k) {
    uint64_t h = (uint64_t{k.location} << 32 | k.from) * 0x9e3779b97f4a7c15ULL ^ k.to;
    h ^= h >> 31;  // the low bits pick the slot: mix the high ones in
    h *= 0xbf58476d1ce4e5b9ULL;
    return static_cast<size_t>(h ^ (h >> 29));
  }

  // The slot holding `key`, or the empty one where it would go.
  uint32_t Find(const PathKey& key) const {
    const size_t mask = slots_.size() - 1;
    size_t i = Hash(key) & mask;
    while (slots_[i].key.location != kEmpty && !(slots_[i].key == key)) i = (i + 1) & mask;
    return static_cast<uint32_t>(i);
  }

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.empty() ? 64 : old.size() * 2, Slot{});
    for (const Slot& s : old)
      if (s.key.location != kEmpty) slots_[Find(s.key)] = s;
  }

  std::vector<Slot> slots_;
  std::vector<Value> values_;
};

// The characterisation's late paths, each computed once per (location, from, to) while cached.
// The waiters that ask for one path end together, so they come one after another in completion
// order: the last kPaths paths find it as all of them did (half a million paths, 60 MB, on BT-MZ).
// When full, the cache is forgotten whole; a view stays valid until the next Get.
class LatePathCache {
 public:
  static constexpr size_t kPaths = size_t{1} << 16;

  // The path of `key`; compute(steps::Sparse& out) makes it when it is not cached.
  template <typename Compute>
  steps::View Get(const PathKey& key, Compute&& compute) {
    if (cache_.size() >= kPaths) {
      cache_.Clear();
      pool_.Clear();
    }
    auto [range, added] = cache_.TryEmplace(key);
    if (added) {
      compute(scratch_);
      *range = pool_.Store(scratch_);
    }
    return range->in(pool_);
  }
  size_t size() const { return cache_.size(); }

 private:
  PathCache<steps::Range> cache_;
  steps::Pool pool_;
  steps::Sparse scratch_;
};

}  // namespace grainscope
