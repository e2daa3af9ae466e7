// The `gantt` report: the actual Gantt chart.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/profile/profile.h"
#include "base/status.h"
#include "report/render_options.h"

namespace grainscope {

Result<std::string> RenderGantt(const Trace& trace, const std::vector<GanttLane>& lanes,
                                const RenderOptions& o);

}  // namespace grainscope
