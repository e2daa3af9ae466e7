#include "schedule/io/graph_input.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/taskgraph/taskgraph.h"
#include "base/file.h"
#include "format/detection.h"
#include "format/importer.h"
#include "format/trace_reader.h"
#include "model/diagnostic_kinds.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

// A reader `schedule` may choose: a task-graph reader or a trace reader.
struct GraphReader {
  std::string_view name;
  const TaskGraphImporter* graph = nullptr;
  const Importer* trace = nullptr;
};

// Every reader, in the order "auto" asks them (graph_input.h), and what detection knows of each.
struct GraphReaders {
  std::vector<GraphReader> readers;
  std::vector<Candidate> candidates;
};

const GraphReaders& Readers() {
  static const GraphReaders all = [] {
    GraphReaders r;
    for (const TaskGraphImporter* g : TaskGraphImporters()) {
      r.readers.push_back({g->name, g, nullptr});
      r.candidates.push_back({g->sniff});
    }
    for (const Importer* t : ImportersInDetectionOrder()) {
      r.readers.push_back({t->name, nullptr, t});
      r.candidates.push_back(CandidateOf(*t));
    }
    return r;
  }();
  return all;
}

Status NeitherTraceNorTaskGraph(const std::string& path, std::string_view) {
  return DataLoss(fmt::format("{}: neither a trace nor a task graph grainscope reads (a seed text trace, the "
                              "seed's Task_Graph, STG, DOT with Weight= attributes, taskgraph JSON); "
                              "--input-format names one",
                              path));
}

// A missing, unreadable or empty file gets ReadFile's message or the empty-file one, whatever its
// name; a directory no reader of paths claims ReadFile's.
constexpr DetectionRules kGraphRules{"a trace or a task graph", NeitherTraceNorTaskGraph, nullptr, true};

Result<GraphInput> FromTrace(Result<Trace> read, const std::string& path) {
  GS_ASSIGN_OR_RETURN(Trace trace, std::move(read));
  GraphInput in;
  GS_ASSIGN_OR_RETURN(TaskGraph tg, BuildTaskGraph(trace));
  GS_ASSIGN_OR_RETURN(in.dag, DagFromTaskGraph(trace, tg, path));
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

// "auto", by the rule ReadTrace follows (format/detection.h).
Result<GraphInput> ReadDetected(const std::string& path, const ReadOptions& read) {
  GS_ASSIGN_OR_RETURN(Detected detected, Detect(path, Readers().candidates, kGraphRules));
  const GraphReader& reader = Readers().readers[detected.chosen];
  if (reader.graph != nullptr) return FromTaskGraph(*reader.graph, detected.content, path);
  if (reader.trace->read_path != nullptr && detected.content.empty()) return FromTrace(ReadTrace(path, reader.name, read), path);
  return FromTrace(ReadTraceContent(detected.content, path, *reader.trace, read), path);
}

}  // namespace

// Why a trace's task graph has a cycle, in the user's words: its tasks exchange messages (or wait
// for each other) both ways, which a scheduler cannot order.
std::string CycleHint(const Trace& trace) {
  if (!HasGrainRegions(trace))
    return ". Its tasks are each location's outermost regions of work (the trace has no grains), and "
           "they depend on each other both ways (messages, a thread's creation and join, locks); predict and schedule need grains that receive before and "
           "send after their work (GS_GRAIN, docs/recording.md). critpath, waits and replay analyse this "
           "trace as it is";
  return ". A grain receives a message that depends on one it sent: split it where it waits "
         "(docs/recording.md)";
}

Result<TaskDag> DagFromTaskGraph(const Trace& trace, const TaskGraph& tg, const std::string& source) {
  DagBuilder b(source);
  b.set_time_unit("ns");
  b.set_error_context(
      [&](uint32_t task) {
        const TaskNode& n = tg.nodes[task];
        return fmt::format("{} '{}' on '{}'", n.id, trace.str(trace.region(n.grain.region).name),
                           trace.str(trace.location(n.grain.location).name));
      },
      CycleHint(trace));
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
  const size_t chosen = MostSure(Readers().candidates, TraceProbe{path, head});
  return chosen == Readers().readers.size() ? std::string_view() : Readers().readers[chosen].name;
}

Result<GraphInput> ReadGraphInput(const std::string& path, std::string_view format, const ReadOptions& read) {
  if (IsMemoryTrace(path)) return FromTrace(ReadTrace(path, "auto", read), path);
  if (format == "auto") return ReadDetected(path, read);
  const auto& readers = Readers().readers;
  const auto named = std::find_if(readers.begin(), readers.end(), [&](const GraphReader& r) { return r.name == format; });
  if (named == readers.end()) {
    return InvalidArgument(
        fmt::format("unknown input format '{}' (known: {})", format, fmt::join(GraphInputFormats(), ", ")));
  }
  return ReadNamed(*named, path, read);
}

}  // namespace grainscope
