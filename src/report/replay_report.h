// The `replay` report: the what-if run against the measured one.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/replay.h"
#include "base/status.h"
#include "report/render_options.h"

namespace grainscope {

// `replayed_path` is the critical path of the replayed run; `what_if` describes the models.
Result<std::string> RenderReplay(const Trace& trace, const ReplayResult& r, const CriticalPath& replayed_path,
                                 const std::string& what_if, const RenderOptions& o);

}  // namespace grainscope
