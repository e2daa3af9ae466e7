// The `taskgraph` report: the program's task graph.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/taskgraph/taskgraph.h"
#include "base/status.h"
#include "base/text_sink.h"
#include "report/render_options.h"

namespace grainscope {

// Written while it is produced (base/text_sink.h): a JSON, seed or dot graph of millions of grains
// goes out as it grows.
Status WriteTaskGraph(const Trace& trace, const TaskGraph& g, const RenderOptions& o, TextSink& out);
// The same, whole.
Result<std::string> RenderTaskGraph(const Trace& trace, const TaskGraph& g, const RenderOptions& o);

}  // namespace grainscope
