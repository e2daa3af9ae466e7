// What a task-graph reader is to `schedule`'s input, in the trace readers' shape (format/importer.h):
// a name, a sniffer that says from a path and its first bytes (the same TraceProbe) how sure the
// reader is that it reads them, and a read of the file's content. The registry
// (taskgraph_registry.cc) lists every task-graph reader explicitly, one line each; ReadGraphInput
// (graph_input.h) asks them together with the trace readers. docs/contributing.md, "Adding a
// task-graph reader", says how one is added.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "format/importer.h"
#include "schedule/dag.h"

namespace grainscope {

// What --input-format takes and GraphInput::format says.
inline constexpr std::string_view kSeedTaskGraphFormat = "seed-taskgraph";
inline constexpr std::string_view kStgFormat = "stg";
inline constexpr std::string_view kDotFormat = "dot";
inline constexpr std::string_view kJsonTaskGraphFormat = "taskgraph-json";

struct TaskGraphImporter {
  std::string_view name;
  // kSure for an extension, kPlausible for text this reader would take, so that a trace reader sure
  // of the file (a *.otf2 or *.gst name) keeps it; the JSON reader is also sure of a '{'
  // (readers.h says what each one looks at).
  Sniff (*sniff)(const TraceProbe& probe);
  // The file's content; `source` names it in messages.
  Result<TaskDag> (*read)(std::string_view content, const std::string& source);
};

// Every task-graph reader, in the order --help lists them and "auto" asks them (registry).
std::span<const TaskGraphImporter* const> TaskGraphImporters();

// The task-graph reader named `name`, or nullptr.
const TaskGraphImporter* FindTaskGraphImporter(std::string_view name);

// What the sniffers look at. The extension of `path` is `extension` (".stg"), in any letter case.
bool HasExtension(std::string_view path, std::string_view extension);
// The first word of `text`: up to a blank, '{' or '<' ("digraph" of "digraph g {").
std::string_view FirstWord(std::string_view text);

}  // namespace grainscope
