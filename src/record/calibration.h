// The start-up calibration of the per-event overhead (SPEC.md section 5; TAU's method of timing
// null events, refined for a machine whose speed changes from one millisecond to the next).
#pragma once

#include <cstddef>

namespace grainscope::record {

// What one recorded event costs the code around it, in clock ticks (of the clock the runtime
// reads). Runs on the calling thread for about 1-2 ms; records into a scratch buffer, never into
// the trace.
double CalibrateOverheadTicks();

// The method, for the trace's `overhead_calibration` metadata.
void DescribeCalibration(char* out, size_t size);

}  // namespace grainscope::record
