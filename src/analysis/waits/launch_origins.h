// Where a location's run began, when another location started it: a GPU stream's first work is
// launched by a CPU thread's call (a kGpuLaunch edge into the stream's first event). Two streams
// that never synchronised before a collective are then compared from their launching threads'
// starts (characterize.cc): rank 1's stream reached the all-reduce 200 us late because rank 1's
// thread computed 200 us longer before launching it, not because "the stream started later".
#pragma once

#include <optional>
#include <vector>

#include "model/trace.h"

namespace grainscope {

struct LaunchOrigin {
  LocationId from;     // the launching location
  EventIndex event;    // its event the edge leaves (the launch call's Enter)
};

// Per location: the GPU launch edge into its first event, if it has one.
std::vector<std::optional<LaunchOrigin>> LaunchOrigins(const Trace& t);

}  // namespace grainscope
