// What-if replay of a trace read in shares (model/trace_share.h; grainscope-mpi replay): Replay
// (replay.h) with its sweeps run over the shares (sweep_shares.h), each share retiming its own
// locations and taking the other shares' replayed times of its ghost events, then the critical
// path of the replayed run over the same shares (critpath_shares.h). Share 0 gets what
// `grainscope replay` reports: the same figures, location by location.
#pragma once

#include <optional>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/clc.h"
#include "analysis/replay/replay.h"
#include "base/status.h"
#include "model/share_exchange.h"
#include "model/trace_share.h"

namespace grainscope {

struct SharedReplay {
  ReplayResult result;  // without `times`: each share's replayed times stay with it
  CriticalPath replayed_path;
};

// FitLatencyBandwidth of the whole trace, on every share: each share's fastest transfers per size
// (of the messages it sends) to every share.
Result<NetworkFit> FitLatencyBandwidthOfShare(const TraceShare& share, ShareExchange& exchange);

// The controlled logical clock (clc.h) over the shares: the share with its own events at their
// corrected times and its ghost events at their owners'. `before` gets the whole trace's clock
// violations (the correction's input), on every share.
Result<TraceShare> CorrectClocksOfShare(const TraceShare& share, ShareExchange& exchange, const ClcOptions& options,
                                        ClockViolations& before);

// Every share calls it with its completed share and the same what-if (names resolved by every
// share alike: a share holds every definition). Share 0 gets the result; the others nullopt.
Result<std::optional<SharedReplay>> ReplayShare(const TraceShare& share, ShareExchange& exchange, const WhatIf& w);

}  // namespace grainscope
