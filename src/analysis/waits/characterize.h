// Waiting-time characterisation (SPEC.md §7; Meira's Carnival): why each wait happened, merged
// into a few explanations per synchronisation point.
//
// For a wait of location p on location q, the two execution paths since p and q last
// synchronised with each other (a message between them, or a collective both were in) are
// compared (two that never synchronised: from their first events, and where a launch started
// one of them — a GPU stream's first kernel — from its launching thread's first event, over the
// launch: launch_origins.h). A path is a set of steps — (region, state) with state compute, communication,
// collective or wait — and their accumulated time. The wait's characterisation is q's path minus
// p's path, plus a "propagated" step for how much later q left that synchronisation than p (a
// receiver leaves a message's synchronisation after its sender; without that step the steps of a
// wait after a message from p to q can all be negative and explain nothing). So the steps add up
// to the wait. A waiting step inside q's path is replaced by that earlier wait's own
// characterisation, so everything is expressed in computation (or in what propagated from before
// the trace's first synchronisation). Steps present on both sides are dropped in order of
// increasing difference while what remains still accounts for >= 95 % of the wait. Waits of one
// synchronisation point then form equivalence classes: the share of a step is |time| / total,
// the distance between two waits the sum over the union of steps of their share differences (0
// to 2), and a wait joins the first class whose representative is closer than the threshold.
//
// The default threshold is 0.5: identical causes with a few % of jitter are far below it (a
// 10 % change of one step moves the distance by at most 0.2), while waits with a different main
// cause share little and land near 2. Every wait also charges its time to the regions of the
// late location's excess ("root causes", like Scalasca's short-term delay costs).
//
// Cost (bench/analysis_bench --only waits): one pass over the events builds per-location
// checkpoints of the time spent per region (every max(64, 4 x regions) events, at most 2 bytes
// per event), so a path costs O(regions + checkpoint spacing + its blocking events) rather than
// its length; late locations' paths are cached; class search skips far classes with a lower
// bound (class_search.h). Paths, characterisations and class sums live in flat pools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/waits/wait_states.h"

namespace grainscope {

// kPropagated is not time spent on either path: it is how much later the late location left the
// two locations' last synchronisation than the waiter did (its region: the late location's call
// there). The late location was already behind by that much, for reasons before that point.
enum class StepState : uint8_t { kCompute, kCommunication, kCollective, kWait, kPropagated };
inline constexpr uint32_t kStepStates = 5;
std::string_view StepStateName(StepState s);

struct Step {
  RegionId region;  // invalid: outside any region
  StepState state;
  TimeNs ns = 0;    // signed in a characterisation
};

struct WaitClass {
  uint64_t count = 0;
  TimeNs wait_ns = 0;
  std::vector<Step> steps;     // members' characterisations added up, largest excess first
  // Per step: its share of the class's positive excess (steps with none: 0). The positive shares
  // add up to 1: the wait is spread over the steps that were longer on the late path.
  std::vector<double> shares;
};

struct SyncPointClasses {
  uint32_t sync_point = 0;
  TimeNs wait_ns = 0;
  uint64_t count = 0;
  std::vector<WaitClass> classes;  // by total wait, largest first
};

struct RegionDelay {
  RegionId region;
  TimeNs delay_ns = 0;  // waiting this region's excess caused on other locations
};

struct CharacterizeOptions {
  double threshold = 0.5;
  double keep_fraction = 0.95;
};

struct Characterization {
  std::vector<SyncPointClasses> sync_points;  // by total wait, largest first
  std::vector<RegionDelay> root_causes;       // largest first
  uint64_t characterized = 0;                 // wait instances with a late location
};

Characterization Characterize(const Trace& trace, const CallSites& calls, const WaitStates& waits,
                              const CharacterizeOptions& options = {});

}  // namespace grainscope
