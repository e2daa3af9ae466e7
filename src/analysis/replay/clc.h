// Controlled logical clock (Scalasca; Becker, Rabenseifner, Wolf): repairs a trace whose
// locations' clocks disagree, so that every receive comes at least `min_latency_ns` after its
// send and every collective end after the begins it waits for.
//
// Forward pass (the replay sweep with measured durations and min_latency edges): an event that
// violates causality is moved forward just enough, and the events after it on its location move
// with it, so local intervals are preserved. Backward amortisation: each forward jump is spread
// over the events since the previous jump on that location, as a linear ramp in time, so the
// correction does not open a sudden gap; sends and collective begins are never moved past what
// their receivers allow, and event order on a location is kept.
#pragma once

#include <vector>

#include "analysis/replay/replay.h"
#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

struct ClcOptions {
  TimeNs min_latency_ns = 0;
};

struct ClcResult {
  Timeline times;  // corrected absolute time of every event
  ClockViolations violations;  // causality violations in the input
  uint64_t moved_events = 0;  // events whose time changed
  TimeNs max_shift_ns = 0;
};

Result<ClcResult> ControlledLogicalClock(const Trace& trace, const ClcOptions& options = {});

}  // namespace grainscope
