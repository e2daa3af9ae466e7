// The `critpath` report: the chain of work that set the run time.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/critpath/critpath.h"
#include "base/status.h"
#include "base/text_sink.h"
#include "report/render_options.h"

namespace grainscope {

// Written while it is produced (base/text_sink.h): a JSON or CSV path of millions of stretches
// goes out as it grows.
Status WriteCriticalPath(const Trace& trace, const CriticalPath& cp, const RenderOptions& o, TextSink& out);
// The same, whole.
Result<std::string> RenderCriticalPath(const Trace& trace, const CriticalPath& cp, const RenderOptions& o);

}  // namespace grainscope
