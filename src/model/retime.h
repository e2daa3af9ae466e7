// A copy of a Trace with new timestamps: how replay, clock correction and overhead compensation
// hand back the timeline they computed, so every analysis and writer works on it unchanged.
#pragma once

#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

// `times[offset(l) + e]` is the new time of event e of location l (locations' events laid end
// to end, as in HbGraph::flat). Fails when the new times decrease on a location.
Result<Trace> Retime(const Trace& trace, const std::vector<TimeNs>& times, std::string_view format_suffix);

}  // namespace grainscope
