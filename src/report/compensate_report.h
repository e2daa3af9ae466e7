// The `compensate` report: measured and overhead-compensated times side by side.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/compensate/compensate.h"
#include "base/status.h"
#include "report/render_options.h"

namespace grainscope {

Result<std::string> RenderCompensation(const Trace& trace, const Compensation& c, const RenderOptions& o);

}  // namespace grainscope
