// "One rank's straggling removed" (replay --unstraggle): how much faster a process (a rank with
// its threads) would have to compute to compute no more than the other processes' median. Its
// computation is the time its CPU locations spent in the class computation
// (time_classes.h); the factor is that over the median of the other processes' (at least 1: a
// process at or below the median is left as it is). Its GPU streams are not scaled: a rank whose
// GPU straggles is another question (replay --region-speed on its kernels).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/trace.h"
#include "model/share_exchange.h"
#include "model/trace_share.h"

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

// Per process with a CPU location: its CPU locations' computation. Over the locations `own` holds
// (a share of a trace holds whole processes: grainscope-mpi adds up its shares' maps).
using ProcessComputation = std::map<uint32_t, TimeNs>;
ProcessComputation ComputeProcessComputation(const Trace& t, const LocationSet& own);

// Every process's computation on every share: each share's own processes' to every share.
Result<ProcessComputation> ComputeProcessComputationOfShare(const TraceShare& share, ShareExchange& exchange);

// The plan from every process's computation (ComputeProcessComputation of the whole trace).
Result<StragglerPlan> PlanUnstraggle(const Trace& t, const std::string& location, const ProcessComputation& computation);

}  // namespace grainscope
