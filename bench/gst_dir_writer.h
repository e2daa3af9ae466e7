// Writes a Trace as a directory of .gst streams, one per location, in the form libgrainscope-mpi
// records (docs/formats/gst.md, "A directory of ranks"), so the benchmarks can feed the .gst
// directory reader with synthetic MPI runs. Bench-only: the recording runtime is the real writer.
// Limits: the trace's own clock (ns) becomes a CLOCK_MONOTONIC raw clock starting at 0; only
// the event kinds the synthetic generator makes are written (enter, leave, send, receive,
// collective begin, marker).
#pragma once

#include <string>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

Status WriteGstDirectory(const Trace& trace, const std::string& dir);

}  // namespace grainscope
