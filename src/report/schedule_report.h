// The `schedule` report: a projected schedule of a task graph and its speedup.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "report/render_options.h"
#include "schedule/portfolio.h"

namespace grainscope {

// A projected schedule (`requested` is the heuristic asked for, e.g. "best"); `speedup` may be
// empty. Times are in the graph's unit (ns for a trace's graph: seed output then uses unit_ns).
// `m` is the machine `s` was made for (the text states the model).
Result<std::string> RenderSchedule(const TaskDag& g, const Machine& m, const Schedule& s, std::string_view requested,
                                   const std::vector<SpeedupPoint>& speedup, const RenderOptions& o);

}  // namespace grainscope
