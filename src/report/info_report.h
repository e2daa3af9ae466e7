// The `info` report: what a trace holds.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/summary/summary.h"
#include "base/status.h"
#include "report/render_options.h"

namespace grainscope {

Result<std::string> RenderInfo(const Trace& trace, const TraceSummary& summary, const RenderOptions& o);

}  // namespace grainscope
