// One entry point for every trace format grainscope reads: picks the reader by the --input-format
// name or, with "auto", by looking at the path and the file's first bytes (format/detection.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "format/importer.h"
#include "model/trace.h"

namespace grainscope {

// Names accepted by ReadTrace's `format` ("auto" included).
std::vector<std::string_view> ReadableFormats();

Result<Trace> ReadTrace(const std::string& path, std::string_view format = "auto", const ReadOptions& options = {});

// The trace readers in the order "auto" asks them (format/detection.h, also `schedule`'s: it asks
// the task-graph readers first, schedule/io/graph_input.h): readers of paths (chosen before
// anything is read), then readers of content (and of both), each in registry order.
std::vector<const Importer*> ImportersInDetectionOrder();

// A trace whose bytes were read already (a pipe is read once), by `reader`, a reader of content.
Result<Trace> ReadTraceContent(std::string_view content, const std::string& path, const Importer& reader,
                               const ReadOptions& options = {});

// Traces held in memory under a name that ReadTrace takes like a path (and so every command and
// the task-graph input of `schedule`): the Python module hands a trace it has loaded to the CLI's
// commands this way, without reading its file again (under the trace's own path, so that outputs
// name it as the CLI would). The holder keeps `trace` alive until it removes it; ReadTrace returns
// a copy (Trace::Copy: the body shared, the times copied).
void PutMemoryTrace(const std::string& name, const Trace* trace);
void RemoveMemoryTrace(const std::string& name);
bool IsMemoryTrace(const std::string& name);

}  // namespace grainscope
