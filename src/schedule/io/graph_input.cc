#include "schedule/io/graph_input.h"

#include <algorithm>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/taskgraph/taskgraph.h"
#include "base/file.h"
#include "format/importer.h"
#include "format/trace_reader.h"
#include "model/diagnostic_kinds.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

// A reader `schedule` may choose: a task-graph reader or a trace reader.
struct GraphReader {
  std::string_view name;
  Sniff (*sniff)(const TraceProbe& probe);
  const TaskGraphImporter* graph = nullptr;
  const Importer* trace = nullptr;
  bool ReadsPaths() const { return trace != nullptr && trace->read_path != nullptr; }
};

// Every reader, in the order "auto" asks them (graph_input.h).
const std::vector<GraphReader>& Readers() {
  static const std::vector<GraphReader> readers = [] {
    std::vector<GraphReader> all;
    for (const TaskGraphImporter* g : TaskGraphImporters()) all.push_back({g->name, g->sniff, g, nullptr});
    for (const Importer* t : ImportersInDetectionOrder()) all.push_back({t->name, t->sniff, nullptr, t});
    return all;
  }();
  return readers;
}

const GraphReader* Detect(const TraceProbe& probe) {
  static const std::vector<const GraphReader*> pointers = [] {
    std::vector<const GraphReader*> all;
    for (const GraphReader& r : Readers()) all.push_back(&r);
    return all;
  }();
  return MostSure<GraphReader>(pointers, probe);
}

Result<GraphInput> FromTrace(Result<Trace> read, const std::string& path) {
  GS_ASSIGN_OR_RETURN(Trace trace, std::move(read));
  GraphInput in;
  GS_ASSIGN_OR_RETURN(TaskGraph tg, BuildTaskGraph(trace));
  GS_ASSIGN_OR_RETURN(in.dag, DagFromTaskGraph(tg, path));
  in.format = std::string(trace.format());
  in.from_trace = true;
  in.notes = DiagnosticNotes(trace.diagnostics());
  return in;
}

Result<GraphInput> FromTaskGraph(const TaskGraphImporter& reader, std::string_view content, const std::string& path) {
  GraphInput in;
  GS_ASSIGN_OR_RETURN(in.dag, reader.read(content, path));
  if (in.dag.size() == 0) return FailedPrecondition(fmt::format("{}: the task graph has no tasks", path));
  in.format = std::string(reader.name);
  return in;
}

// --input-format NAME.
Result<GraphInput> ReadNamed(const GraphReader& reader, const std::string& path, const ReadOptions& read) {
  if (reader.trace != nullptr) return FromTrace(ReadTrace(path, reader.name, read), path);
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected a task graph", path));
  return FromTaskGraph(*reader.graph, content, path);
}

// "auto", as ReadTrace does it: a reader of paths (.gst, OTF2) is chosen before anything is read,
// from the name and a regular file's first bytes; everything else is read once (a pipe too) and
// chosen from its first bytes.
Result<GraphInput> ReadDetected(const std::string& path, const ReadOptions& read) {
  const InputHead input = ReadInputHead(path);
  const GraphReader* reader = Detect(TraceProbe{path, input.head, input.stream});
  // A missing, unreadable or empty file gets ReadFile's message and the one below, whatever its name.
  std::error_code ec;
  if (reader != nullptr && reader->ReadsPaths() && (!input.head.empty() || std::filesystem::is_directory(path, ec))) {
    return FromTrace(ReadTrace(path, reader->name, read), path);
  }
  // Checked before the rest is read, so that what no reader takes fails at once, even when it
  // never ends (/dev/zero). A pipe shows its first bytes only here: a reader of paths cannot read it.
  auto sniff = [&](std::string_view head) -> Status {
    if (head.empty()) return OkStatus();
    reader = Detect(TraceProbe{path, head, input.stream});
    if (reader == nullptr) {
      return DataLoss(fmt::format("{}: neither a trace nor a task graph grainscope reads (a seed text trace, the "
                                  "seed's Task_Graph, STG, DOT with Weight= attributes, taskgraph JSON); "
                                  "--input-format names one",
                                  path));
    }
    return reader->ReadsPaths() ? StreamNeedsAFile(path, *reader->trace) : OkStatus();
  };
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path, sniff));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected a trace or a task graph", path));
  if (reader->trace != nullptr) return FromTrace(ReadTraceContent(content, path, *reader->trace, read), path);
  return FromTaskGraph(*reader->graph, content, path);
}

}  // namespace

Result<TaskDag> DagFromTaskGraph(const TaskGraph& tg, const std::string& source) {
  DagBuilder b(source);
  b.set_time_unit("ns");
  std::map<uint32_t, uint32_t> index;
  for (const TaskNode& n : tg.nodes) index[n.id] = b.AddTask(n.id, n.grain.duration());
  for (const TaskEdge& e : tg.edges) b.AddEdge(index.at(e.from), index.at(e.to), e.delay_ns);
  return std::move(b).Build();
}

std::vector<std::string_view> GraphInputFormats() {
  std::vector<std::string_view> formats = ReadableFormats();
  for (const TaskGraphImporter* reader : TaskGraphImporters()) formats.push_back(reader->name);
  return formats;
}

std::string_view DetectGraphFormat(const std::string& path, std::string_view head) {
  const GraphReader* reader = Detect(TraceProbe{path, head});
  return reader == nullptr ? std::string_view() : reader->name;
}

Result<GraphInput> ReadGraphInput(const std::string& path, std::string_view format, const ReadOptions& read) {
  if (IsMemoryTrace(path)) return FromTrace(ReadTrace(path, "auto", read), path);
  if (format == "auto") return ReadDetected(path, read);
  const auto& readers = Readers();
  const auto named = std::find_if(readers.begin(), readers.end(), [&](const GraphReader& r) { return r.name == format; });
  if (named == readers.end()) {
    return InvalidArgument(
        fmt::format("unknown input format '{}' (known: {})", format, fmt::join(GraphInputFormats(), ", ")));
  }
  return ReadNamed(*named, path, read);
}

}  // namespace grainscope
