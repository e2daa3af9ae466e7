// One entry point for the scheduler's input: any trace grainscope reads (its task graph is
// derived with BuildTaskGraph) or a task-graph file (seed Task_Graph, STG, DOT, JSON).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "schedule/dag.h"

namespace grainscope {

inline constexpr std::string_view kSeedTaskGraphFormat = "seed-taskgraph";
inline constexpr std::string_view kStgFormat = "stg";
inline constexpr std::string_view kDotFormat = "dot";
inline constexpr std::string_view kJsonTaskGraphFormat = "taskgraph-json";

// Names accepted by ReadGraphInput: "auto", every trace format of ReadableFormats(), and the
// four task-graph formats above.
std::vector<std::string_view> GraphInputFormats();

struct GraphInput {
  TaskDag dag;
  std::string format;       // the format that was read
  bool from_trace = false;  // a trace: times in ns, ids are the task graph's node ids
  std::vector<std::string> notes;  // a trace's reader diagnostics (model/diagnostic_kinds.h)
};

// "auto" picks the reader by extension (.stg, .dot/.gv, .json), else by content (a first word
// Task_Graph; `digraph`; a '{'; a lone integer on the first line followed by STG records), and
// otherwise hands the file to the trace readers.
Result<GraphInput> ReadGraphInput(const std::string& path, std::string_view format = "auto");

// The format "auto" would choose for this content and file name ("trace" for a trace).
std::string_view DetectGraphFormat(const std::string& path, std::string_view content);

}  // namespace grainscope
