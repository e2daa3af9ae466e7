// Which class of a synchronisation point a wait joins (SPEC.md §7): the first class whose
// representative is closer than the threshold, the distance being the sum over the union of
// steps of the share differences (an L1 distance between share vectors, 0 to 2).
//
// Sync points gather hundreds of classes, and most of them are far from a given wait, so every
// wait used to merge its shares against every representative in turn. Each representative now
// also carries its shares folded into kBuckets float sums (a step's bucket is fixed when the
// step is first seen); the L1 distance of the folded vectors is a lower bound of the true one
// (triangle inequality), so a class whose bound is clearly at or above the threshold cannot be
// the match and is skipped without the exact merge. The bound only skips, never decides a match:
// the chosen class is the one the exact distance alone would choose.
//
// The classes grow with the trace, so even the folded check per class adds up; before it, each
// class is compared by one number: its folded distance to the first kPivots classes (fixed
// pivots). By the triangle inequality |d(class, pivot) - d(query, pivot)| <= d(class, query), so
// a class whose pivot distances differ too much from the query's is skipped at once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace grainscope {

// (step, share) sorted by step.
using Shares = std::vector<std::pair<uint32_t, double>>;

// The exact distance, counting stops once it reaches `limit` (only "closer than" matters).
double ShareDistance(const Shares& a, const Shares& b, double limit);

// The bucket of every step, shared by all sync points.
class StepBuckets {
 public:
  static constexpr uint32_t kBuckets = 16;
  explicit StepBuckets(uint32_t steps) : bucket_(steps, kUnassigned) {}
  // Folds shares into kBuckets sums (new steps get the next bucket round-robin).
  void Fold(const Shares& s, float* out);

 private:
  static constexpr uint8_t kUnassigned = 0xff;
  std::vector<uint8_t> bucket_;
  uint32_t next_ = 0;
};

class ClassSearch {
 public:
  // Index of the first class closer than `threshold` to `shares`, or class_count() if none.
  size_t First(const Shares& shares, double threshold, StepBuckets& buckets);
  // A new class with `shares` as its representative (never changes).
  void Add(Shares shares, StepBuckets& buckets);
  size_t class_count() const { return representatives_.size(); }

 private:
  static constexpr uint32_t kPivots = 2;
  std::vector<Shares> representatives_;
  std::vector<float> folded_;          // kBuckets per class
  std::vector<float> pivot_distance_;  // kPivots per class: folded distance to classes 0, 1, ...
};

}  // namespace grainscope
