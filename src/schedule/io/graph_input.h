// One entry point for the scheduler's input: any trace grainscope reads (its task graph is
// derived with BuildTaskGraph) or a task-graph file (seed Task_Graph, STG, DOT, JSON).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "format/read_options.h"
#include "schedule/dag.h"
#include "schedule/io/taskgraph_importer.h"

namespace grainscope {

// Names accepted by ReadGraphInput: "auto", every trace format of ReadableFormats(), and every
// task-graph reader's (TaskGraphImporters()).
std::vector<std::string_view> GraphInputFormats();

struct GraphInput {
  TaskDag dag;
  std::string format;       // the format that was read
  bool from_trace = false;  // a trace: times in ns, ids are the task graph's node ids
  std::vector<std::string> notes;  // a trace's reader diagnostics (model/diagnostic_kinds.h)
};

// A named format is read by the task-graph reader or the trace reader of that name. "auto" asks
// the sniffers of the task-graph readers (registry order), then those of the trace readers (in
// ReadTrace's order: ImportersInDetectionOrder), through ReadTrace's detection (format/detection.h:
// the first sure one wins, else the first plausible one; a missing, unreadable or empty file gets
// the file's error whatever its name). So an extension (.stg, .dot/.gv, .json) and a JSON object
// ('{', also a Chrome trace's) go to the task-graph reader; Task_Graph, `digraph` and STG-like text to it unless a trace reader is sure (a *.otf2 or
// *.gst name); anything else to the trace readers, as `info` reads it. That is what the fixed rules
// before the registry chose, but for such a *.otf2 or *.gst file (they read it as the task graph):
// with one verdict per reader no order keeps both "an extension first" and "'{' before Chrome".
// `read` (--strict) is passed to a trace reader (format/read_options.h).
Result<GraphInput> ReadGraphInput(const std::string& path, std::string_view format = "auto",
                                  const ReadOptions& read = {});

// The name of the reader "auto" would choose for a file `path` whose first bytes are `head`, or
// an empty name when none would.
std::string_view DetectGraphFormat(const std::string& path, std::string_view head);

}  // namespace grainscope
