// What `grainscope dump` prints: the Trace model exactly as a reader built it, section by section
// (locations, regions, communicators, each location's events, matched messages, collectives,
// unmatched message ends, the reader's diagnostics), so that an importer's golden test is a
// readable diff of the model, in the spirit of Perfetto's and DuckDB's dump-based tests.
//
// The output depends only on the Trace: rows in model order (location, event, message and
// collective index), times in ns relative to the trace's origin, no addresses, no clock readings.
// `o.top` cuts every section to its first rows (0: every row), in text and JSON alike, and each
// section says how many rows it has.
#pragma once

#include <string>

#include "base/status.h"
#include "model/trace.h"
#include "report/render_options.h"

namespace grainscope {

Result<std::string> RenderDump(const Trace& trace, const RenderOptions& o);

}  // namespace grainscope
