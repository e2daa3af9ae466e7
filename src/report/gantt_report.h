// The `gantt` report: the actual Gantt chart.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/profile/profile.h"
#include "analysis/regions/time_classes.h"
#include "base/status.h"
#include "base/text_sink.h"
#include "report/render_options.h"

namespace grainscope {

// `blocked`: ComputeBlockedSpans(trace), per location. The chart draws those periods apart from
// work and idle time (a thread blocked on a lock inside a grain is not working); the seed format
// has no place for them and leaves them out. Written while it is produced (base/text_sink.h).
Status WriteGantt(const Trace& trace, const std::vector<GanttLane>& lanes,
                  const std::vector<std::vector<BlockedSpan>>& blocked, const RenderOptions& o, TextSink& out);
// The same, whole.
Result<std::string> RenderGantt(const Trace& trace, const std::vector<GanttLane>& lanes,
                                const std::vector<std::vector<BlockedSpan>>& blocked, const RenderOptions& o);

}  // namespace grainscope
