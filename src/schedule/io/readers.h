// Readers of task-graph files into a TaskDag. Each takes the file's content and its name (for
// messages); errors say "file:line: what was expected" (JSON: line:column for syntax, the JSON
// path for content). Formats and error lists: docs/schedule.md. Each also declares its registry
// entry (taskgraph_importer.h): its name, its sniffer and its read.
#pragma once

#include <string>
#include <string_view>

#include "analysis/taskgraph/taskgraph.h"
#include "base/status.h"
#include "schedule/dag.h"
#include "schedule/io/taskgraph_importer.h"

namespace grainscope {

// Standard Task Graph Set (Kasahara lab): n, then `id time #preds preds...` for the dummy entry
// task 0, tasks 1..n and the dummy exit task n+1, then `#` comment lines. The dummy tasks are
// dropped when their time is 0 (they change no schedule's length). No communication costs.
// Sure of a *.stg name; a first line holding one integer and a second starting with task 0 is
// plausibly STG.
Result<TaskDag> ReadStg(std::string_view content, const std::string& source);
extern const TaskGraphImporter kStgImporter;

// Graphviz DOT with `Weight=` attributes on nodes (computation time, required) and edges
// (communication cost, default 0). Node ids are the node names when all are non-negative
// integers (tasks then in id order), else 1..N in order of first appearance.
// Sure of a *.dot or *.gv name; a first word `digraph` or `strict` is plausibly DOT.
Result<TaskDag> ReadDotTaskGraph(std::string_view content, const std::string& source);
extern const TaskGraphImporter kDotImporter;

// The seed's Task_Graph file, as `grainscope taskgraph --format seed` writes it (SPEC.md §1).
// A first word Task_Graph is plausibly one (there is no extension to be sure of).
Result<TaskDag> ReadSeedTaskGraph(std::string_view content, const std::string& source);
extern const TaskGraphImporter kSeedTaskGraphImporter;

// The JSON form `grainscope taskgraph --format json` writes: nodes [{id, time_ns}], edges
// [{from, to, delay_ns}] (other fields ignored); `weight` / `cost` may replace time_ns / delay_ns
// for graphs in another unit.
// Sure of a *.json name and of text starting with '{': a JSON object is read as a task graph, ahead
// of a Chrome trace (whose sniffer is sure of any '{' too); --input-format chrome reads one.
Result<TaskDag> ReadJsonTaskGraph(std::string_view content, const std::string& source);
extern const TaskGraphImporter kJsonTaskGraphImporter;

// The task graph of `trace` (BuildTaskGraph) as a TaskDag in nanoseconds: node ids kept. A graph
// with a cycle fails naming its tasks by region and location, and saying why it has one.
Result<TaskDag> DagFromTaskGraph(const Trace& trace, const TaskGraph& tg, const std::string& source);

}  // namespace grainscope
