#include "analysis/waits/class_search.h"

#include <cmath>
#include <cstring>

namespace grainscope {

double ShareDistance(const Shares& a, const Shares& b, double limit) {
  double d = 0;
  size_t i = 0, j = 0;
  while ((i < a.size() || j < b.size()) && d < limit) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) d += a[i++].second;
    else if (i == a.size() || b[j].first < a[i].first) d += b[j++].second;
    else d += std::fabs(a[i++].second - b[j++].second);
  }
  return d;
}

void StepBuckets::Fold(const Shares& s, float* out) {
  for (uint32_t k = 0; k < kBuckets; ++k) out[k] = 0;
  for (const auto& [step, share] : s) {
    if (bucket_[step] == kUnassigned) bucket_[step] = static_cast<uint8_t>(next_++ % kBuckets);
    out[bucket_[step]] += static_cast<float>(share);
  }
}

namespace {

// The L1 distance of two folded vectors (a lower bound of the exact distance, up to float
// rounding), four buckets at a time in GCC/Clang vector types (SSE on x86-64, generic code
// elsewhere): it runs for most classes of every wait.
using Float4 = float __attribute__((vector_size(16)));
using Int4 = int32_t __attribute__((vector_size(16)));
static_assert(StepBuckets::kBuckets % 4 == 0);

[[gnu::always_inline]] inline float FoldedDistance(const float* a, const float* b) {
  Float4 sum = {0, 0, 0, 0};
  for (uint32_t k = 0; k < StepBuckets::kBuckets; k += 4) {
    Float4 x, y;
    std::memcpy(&x, a + k, sizeof x);
    std::memcpy(&y, b + k, sizeof y);
    sum += reinterpret_cast<Float4>(reinterpret_cast<Int4>(x - y) & 0x7fffffff);  // |x - y|
  }
  return (sum[0] + sum[1]) + (sum[2] + sum[3]);
}

// Float rounding of shares in [0, 1] over a few dozen operations stays far below this; a class
// is skipped only when its bound exceeds the threshold by more.
constexpr float kMargin = 1e-4f;

}  // namespace

size_t ClassSearch::First(const Shares& shares, double threshold, StepBuckets& buckets) {
  float query[StepBuckets::kBuckets];
  buckets.Fold(shares, query);
  const float skip_from = static_cast<float>(threshold) + kMargin;
  const size_t n = representatives_.size();
  float to_pivot[kPivots];
  for (uint32_t p = 0; p < kPivots && p < n; ++p) to_pivot[p] = FoldedDistance(&folded_[p * StepBuckets::kBuckets], query);
  for (size_t i = 0; i < n; ++i) {
    bool far = false;
    for (uint32_t p = 0; p < kPivots && p < n && !far; ++p)
      far = std::fabs(pivot_distance_[i * kPivots + p] - to_pivot[p]) >= skip_from;
    if (far || FoldedDistance(&folded_[i * StepBuckets::kBuckets], query) >= skip_from) continue;
    if (ShareDistance(representatives_[i], shares, threshold) < threshold) return i;
  }
  return n;
}

void ClassSearch::Add(Shares shares, StepBuckets& buckets) {
  const size_t i = representatives_.size();
  folded_.resize(folded_.size() + StepBuckets::kBuckets);
  const float* mine = &folded_[i * StepBuckets::kBuckets];
  buckets.Fold(shares, &folded_[i * StepBuckets::kBuckets]);
  representatives_.push_back(std::move(shares));
  // Distances to the pivots that exist; a pivot added later fills in the earlier classes'.
  pivot_distance_.resize(pivot_distance_.size() + kPivots, 0);
  for (uint32_t p = 0; p < kPivots && p <= i; ++p)
    pivot_distance_[i * kPivots + p] = FoldedDistance(&folded_[p * StepBuckets::kBuckets], mine);
  if (i < kPivots)  // class i is pivot i: the earlier classes learn their distance to it
    for (size_t j = 0; j < i; ++j) pivot_distance_[j * kPivots + i] = FoldedDistance(mine, &folded_[j * StepBuckets::kBuckets]);
}

}  // namespace grainscope
