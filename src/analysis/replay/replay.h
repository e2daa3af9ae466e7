// Timestamp correction and what-if replay (SPEC.md §4; BigSim's post-mortem simulation).
//
// The trace is cut into segments between consecutive events of a location; a segment keeps its
// measured duration (scaled by a CPU speed factor, or zero inside a removed region) unless it is
// time spent waiting for a message or a collective, which the replay recomputes: a receive
// completes when the message arrives (send time + the network model's transfer time), a
// collective ends when the members it waits for have arrived (+ the collective model's cost).
// A collective outside any collective call (the one MPI_Init holds in libgrainscope-mpi's traces:
// the ranks' start-up, not a data transfer) keeps its measured cost under a collective model.
// Virtual time 0 is the trace's earliest event; each location starts at its measured offset.
// Replaying with everything "measured" reproduces the trace exactly (the identity property);
// `max_deviation_ns` reports how exactly.
#pragma once

#include <string>
#include <vector>

#include "analysis/replay/network.h"
#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

struct SpeedFactor {
  std::string name;  // a location's name or external id / a region's name
  double factor = 1;  // 2 = twice as fast: durations are divided by it
  LocationId location;  // when valid, this location (not looked up by name)
};

struct WhatIf {
  NetworkModel network;
  CollectiveModel collective;
  std::vector<SpeedFactor> location_speed;
  std::vector<SpeedFactor> region_speed;  // applies to everything inside the region
  std::vector<std::string> removed_regions;  // their time (and everything inside) becomes zero
  // Measurement overhead of one recorded event, taken off every segment (overhead compensation,
  // SPEC.md §5): the delay it caused then propagates through messages and collectives. In ns,
  // with a fraction: segment e of a location loses round(e*o) - round((e-1)*o) whole ns, so the
  // first k segments lose round(k*o) together (a whole-ns overhead would be off by up to half a
  // ns on every event, 5 % of a 10 ns calibration).
  double overhead_per_event_ns = 0;

  bool identity() const {
    return network.kind == NetworkKind::kMeasured && collective.measured && collective.speed == 1 && location_speed.empty() &&
           region_speed.empty() && removed_regions.empty() && overhead_per_event_ns == 0;
  }
};

struct LocationReplay {
  LocationId location;
  TimeNs measured_ns = 0;   // its last event, from the trace's start
  TimeNs predicted_ns = 0;  // the same in the replay
};

// Evidence that the locations' clocks disagree: messages whose receive completes before their
// send, and collective ends before a begin that feeds them.
struct ClockViolations {
  uint64_t messages = 0;
  uint64_t collectives = 0;  // collective members (ends), not instances
  uint64_t dependencies = 0;  // dependency edges of any kind (a lock hand-over, a GPU launch, ...)
  uint64_t total() const { return messages + collectives + dependencies; }
};

struct ReplayResult {
  TimeNs measured_ns = 0;       // trace span
  TimeNs predicted_ns = 0;      // replayed span
  TimeNs max_deviation_ns = 0;  // identity replay against the measured timestamps
  uint64_t events = 0;          // the trace's events (the identity replay's)
  ClockViolations clock_violations;  // in the replayed input
  bool clocks_corrected = false;     // the input was corrected first (--clc); violations are the original's
  std::vector<LocationReplay> locations;
  Timeline times;  // replayed absolute time of every event (Trace::Retimed makes the replayed trace)
};

// Fails on unknown location or region names in `what_if`. Without `check_identity` the identity
// replay is skipped (max_deviation_ns stays 0): one sweep instead of two.
Result<ReplayResult> Replay(const Trace& trace, const WhatIf& what_if, bool check_identity = true);

ClockViolations CountClockViolations(const Trace& trace);
class HbGraph;
ClockViolations CountClockViolations(const HbGraph& graph);

}  // namespace grainscope
