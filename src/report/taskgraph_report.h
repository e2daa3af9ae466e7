// The `taskgraph` report: the program's task graph.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/taskgraph/taskgraph.h"
#include "base/status.h"
#include "report/render_options.h"

namespace grainscope {

Result<std::string> RenderTaskGraph(const Trace& trace, const TaskGraph& g, const RenderOptions& o);

}  // namespace grainscope
