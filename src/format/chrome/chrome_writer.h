// Writer for Chrome trace-event JSON, the format Perfetto UI and chrome://tracing open.
//
// One track per location (pid = the location's process, tid = the location; process_name and
// thread_name metadata events), a complete event ("ph":"X") per region instance, flow events
// ("ph":"s"/"f", "bp":"e") for messages, instant events ("ph":"i") for markers; non-blocking
// completions and collectives as instant events in grainscope's own categories. Timestamps are
// microseconds since the trace's origin with three decimals, so nanoseconds survive exactly.
// docs/formats/chrome.md describes the layout and what ReadChromeJson takes back.
#pragma once

#include <string>
#include <string_view>

#include "base/output_target.h"
#include "base/status.h"
#include "base/text_sink.h"
#include "format/exporter.h"
#include "format/format_names.h"
#include "model/trace.h"

namespace grainscope {

// The JSON text of `trace`, written while it is produced (base/text_sink.h).
void WriteChromeJson(const Trace& trace, TextSink& out);
// The same, whole.
std::string ChromeJson(const Trace& trace);

// Writes the JSON text of `trace` to `path` as it is produced, atomically (a file complete or not
// there); an existing file there is replaced only with options.force (base/output_target.h).
Status WriteChromeJson(const Trace& trace, const std::string& path, const OutputOptions& options = {});

// The Chrome JSON writer in the registry (format/registry.cc): "auto" picks it for *.json; its
// output is any regular file.
extern const Exporter kChromeExporter;

}  // namespace grainscope
