#include "analysis/waits/class_search.h"

#include <cmath>

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
// rounding), in four independent sums the compiler can vectorise.
float FoldedDistance(const float* a, const float* b) {
  float part[4] = {0, 0, 0, 0};
  for (uint32_t k = 0; k < StepBuckets::kBuckets; k += 4)
    for (uint32_t i = 0; i < 4; ++i) part[i] += std::fabs(a[k + i] - b[k + i]);
  return (part[0] + part[1]) + (part[2] + part[3]);
}

// Float rounding of shares in [0, 1] over a few dozen operations stays far below this; a class
// is skipped only when its bound exceeds the threshold by more.
constexpr float kMargin = 1e-4f;

}  // namespace

size_t ClassSearch::First(const Shares& shares, double threshold, StepBuckets& buckets) {
  float query[StepBuckets::kBuckets];
  buckets.Fold(shares, query);
  const float skip_from = static_cast<float>(threshold) + kMargin;
  for (size_t i = 0; i < representatives_.size(); ++i) {
    if (FoldedDistance(&folded_[i * StepBuckets::kBuckets], query) >= skip_from) continue;
    if (ShareDistance(representatives_[i], shares, threshold) < threshold) return i;
  }
  return representatives_.size();
}

void ClassSearch::Add(Shares shares, StepBuckets& buckets) {
  folded_.resize(folded_.size() + StepBuckets::kBuckets);
  buckets.Fold(shares, &folded_[folded_.size() - StepBuckets::kBuckets]);
  representatives_.push_back(std::move(shares));
}

}  // namespace grainscope
