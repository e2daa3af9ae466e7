// Critical path, post mortem (SPEC.md §3; Bellenot's cputime generalised to a trace).
//
// cp(event) is the length of the longest chain of work that ends at that event: compute segments
// add their duration, time spent waiting in a receive or a collective for a partner that was not
// ready adds nothing (analysis/replay/measured_waits.h says what was waiting), a receive
// takes the max of its own chain and the sender's chain at the send (+ an optional latency), a
// collective end the max over the begins that feed it, the target of a dependency edge (a join, a
// lock acquire, a GPU sync: model/dependencies.h) the max over the edges' sources. The critical-path length is the largest cp
// over all locations; the path is found by walking back along the inputs that realised each max.
//
// Ties (documented contract): program order wins over an incoming message or collective of equal
// value; among collective members, the lowest location; among locations ending with the same cp,
// the lowest location.
#pragma once

#include <vector>

#include "analysis/profile/grains.h"
#include "analysis/replay/sweep.h"
#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

struct CritPathOptions {
  TimeNs message_latency_ns = 0;  // added to every message and collective edge
};

// A stretch of the path on one location inside one region (invalid region: outside any region).
struct PathSegment {
  LocationId location;
  RegionId region;
  TimeNs start_ns = 0;  // measured times (absolute, like the trace)
  TimeNs end_ns = 0;
  TimeNs time_ns = 0;   // what the stretch adds to the path length (waiting excluded)
};

struct RegionPathTime {
  RegionId region;
  TimeNs time_ns = 0;
  double fraction = 0;  // of the path length
};

// Scalasca's critical-path imbalance: time on the path beyond the mean per-location time.
struct RegionImbalance {
  RegionId region;
  TimeNs on_path_ns = 0;
  TimeNs mean_ns = 0;  // mean over locations of the region's non-waiting time
  TimeNs imbalance_ns = 0;
};

struct GrainSlack {
  GrainInstance grain;
  TimeNs earliest_ns = 0;  // cp value at its start
  TimeNs slack_ns = 0;     // latest start - earliest start
};

struct CriticalPath {
  TimeNs length_ns = 0;
  TimeNs measured_ns = 0;   // span of the trace's events
  TimeNs transfer_ns = 0;   // latency on the path's message and collective edges
  LocationId end_location;  // where the path ends
  std::vector<PathSegment> path;            // in time order
  std::vector<RegionPathTime> profile;      // by time on the path, largest first
  std::vector<RegionImbalance> imbalance;   // regions with imbalance > 0, largest first
  std::vector<GrainSlack> slack;            // every grain instance, in CollectGrains order
  std::vector<TimeNs> compute_ns;           // per location: its non-waiting time
  // What the report cites of the trace's messages (a share of the trace sees only its own).
  uint64_t message_count = 0;
  uint64_t rendezvous_sends = 0;            // model/rendezvous.h
  double load_balance = 0;              // mean compute / max compute
  double transfer_efficiency = 0;       // length / measured
  double serialization_efficiency = 0;  // max compute / length
};

Result<CriticalPath> ComputeCriticalPath(const Trace& trace, const CritPathOptions& options = {});

// The forward sweep alone (cp value per event): for benchmarks and for analyses built on it.
Result<ForwardSweep> SweepCriticalPath(const HbGraph& g, const CritPathOptions& options = {});
// The forward sweep of one share of a trace (grainscope-mpi; `g` the completed share's graph):
// its own locations' values are those of the whole trace's sweep, and so are its ghost events'.
Result<ForwardSweep> SweepCriticalPath(const HbGraph& g, const CritPathOptions& options, SweepShares& shares);

}  // namespace grainscope
