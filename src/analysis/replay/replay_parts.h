// The steps of Replay (replay.h) shared with the replay of a trace read in shares
// (replay_shares.h): each works on the locations `own` holds (all of them: LocationSet{}).
#pragma once

#include <vector>

#include "analysis/replay/replay.h"
#include "analysis/replay/sweep.h"
#include "model/hb_graph.h"
#include "model/trace_share.h"

namespace grainscope {

class SweepShares;

namespace replay_internal {

// The forward sweep of the what-if `w`, virtual time 0 at `start` (the whole trace's first
// event); over the shares when `shares` is given. Fails on unknown location or region names.
Result<ForwardSweep> SweepWhatIf(const HbGraph& g, const WhatIf& w, TimeNs start, SweepShares* shares);

// The largest distance of an own event's identity-replayed time from its measured time.
TimeNs MaxDeviation(const HbGraph& g, const ForwardSweep& identity, TimeNs start, const LocationSet& own);

// Every own location's last event, measured and replayed (`f`), from `start`; by location.
std::vector<LocationReplay> ReplayedLocations(const HbGraph& g, const ForwardSweep& f, TimeNs start,
                                              const LocationSet& own);

// The clock violations whose waiting end is on an own location (each counted by one share).
ClockViolations CountClockViolations(const HbGraph& g, const LocationSet& own);

// The controlled logical clock's corrected times (clc.h), relative to `start`: the forward sweep
// (over the shares when `shares` is given), then each own location's jumps amortised. A ghost
// event keeps its forward value: its owner's amortised one comes by SweepShares::ExchangeValues.
Result<std::vector<TimeNs>> CorrectClocks(const HbGraph& g, TimeNs start, TimeNs min_latency, const LocationSet& own,
                                          SweepShares* shares);

}  // namespace replay_internal
}  // namespace grainscope
