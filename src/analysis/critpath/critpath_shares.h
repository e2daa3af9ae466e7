// The critical path of a trace read in shares (model/trace_share.h; grainscope-mpi): Scalasca's
// parallel replay applied to critpath.h. Each share sweeps its own locations forward and backward
// with the other shares' values arriving as they are computed (sweep_shares.h); the share where
// the path ends walks it back until it leaves for another share's location, and hands the walk to
// that share; share 0 gathers the pieces (the path's labelled runs, each location's work, each
// grain's slack) and makes the whole trace's CriticalPath, equal to ComputeCriticalPath's.
#pragma once

#include <optional>

#include "analysis/critpath/critpath.h"
#include "base/status.h"
#include "model/share_exchange.h"
#include "model/trace_share.h"

namespace grainscope {

// Every share calls it with its completed share (ReadOtf2Share with an exchange) and the same
// options. Share 0 gets the critical path; the others nullopt.
Result<std::optional<CriticalPath>> ComputeCriticalPathOfShare(const TraceShare& share, ShareExchange& exchange,
                                                               const CritPathOptions& options = {});

}  // namespace grainscope
