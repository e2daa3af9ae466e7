// The `waits` report: wait states and their characterisation.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "analysis/waits/characterize.h"
#include "base/status.h"
#include "base/text_sink.h"
#include "report/render_options.h"

namespace grainscope {

// Written while it is produced (base/text_sink.h): the CSV of every wait goes out as it grows.
Status WriteWaits(const Trace& trace, const WaitStates& w, const Characterization& c, const RenderOptions& o,
                  TextSink& out);
// The same, whole.
Result<std::string> RenderWaits(const Trace& trace, const WaitStates& w, const Characterization& c,
                                const RenderOptions& o);

}  // namespace grainscope
