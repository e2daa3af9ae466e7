// "One rank's straggling removed" (replay --unstraggle): how much faster a process (a rank with
// its threads) would have to compute to compute no more than the other processes' median. Its
// computation is the time its CPU locations spent in the class computation
// (time_classes.h); the factor is that over the median of the other processes' (at least 1: a
// process at or below the median is left as it is). Its GPU streams are not scaled: a rank whose
// GPU straggles is another question (replay --region-speed on its kernels).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

struct StragglerPlan {
  LocationId process;                 // Location::group of the location named
  TimeNs computation_ns = 0;          // its CPU locations' computation
  TimeNs median_ns = 0;               // the median over the other processes
  double factor = 1;                  // computation_ns / median_ns, at least 1
  std::vector<LocationId> locations;  // its CPU locations: each computes `factor` times faster
};

// The plan for the process of the location named `location` (its name or external id). An error
// when no location has that name, or the trace has no other process to compare with.
Result<StragglerPlan> PlanUnstraggle(const Trace& t, const std::string& location);

}  // namespace grainscope
