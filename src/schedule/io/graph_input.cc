#include "schedule/io/graph_input.h"

#include <algorithm>
#include <cctype>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/taskgraph/taskgraph.h"
#include "base/file.h"
#include "base/numbers.h"
#include "format/importer.h"
#include "format/trace_reader.h"
#include "model/diagnostic_kinds.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

bool EndsWith(std::string_view s, std::string_view suffix) {
  if (s.size() < suffix.size()) return false;
  for (size_t i = 0; i < suffix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[s.size() - suffix.size() + i])) != suffix[i]) return false;
  return true;
}

std::string_view FirstWord(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const size_t e = s.find_first_of(" \t\r\n{<", b);
  return s.substr(b, (e == std::string_view::npos ? s.size() : e) - b);
}

// STG: a first line holding one integer, and a second line starting with "0 0" (the dummy task).
bool LooksLikeStg(std::string_view s) {
  const size_t nl = s.find('\n');
  if (nl == std::string_view::npos) return false;
  std::string_view first = s.substr(0, nl);
  const size_t b = first.find_first_not_of(" \t\r"), e = first.find_last_not_of(" \t\r");
  if (b == std::string_view::npos || !ParseNonNegativeInt(first.substr(b, e - b + 1))) return false;
  std::string_view second = s.substr(nl + 1, s.find('\n', nl + 1) - nl - 1);
  return FirstWord(second) == "0";
}

bool IsTraceFormat(std::string_view format) { return FindImporter(format) != nullptr; }

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
  for (std::string_view f : {kSeedTaskGraphFormat, kStgFormat, kDotFormat, kJsonTaskGraphFormat}) formats.push_back(f);
  return formats;
}

std::string_view DetectGraphFormat(const std::string& path, std::string_view content) {
  if (EndsWith(path, ".stg")) return kStgFormat;
  if (EndsWith(path, ".dot") || EndsWith(path, ".gv")) return kDotFormat;
  if (EndsWith(path, ".json")) return kJsonTaskGraphFormat;
  const std::string_view word = FirstWord(content);
  if (word == "Task_Graph") return kSeedTaskGraphFormat;
  if (word == "digraph" || word == "strict") return kDotFormat;
  const size_t first = content.find_first_not_of(" \t\r\n");
  if (first != std::string_view::npos && content[first] == '{') return kJsonTaskGraphFormat;
  if (LooksLikeStg(content)) return kStgFormat;
  return "trace";
}

Result<GraphInput> ReadGraphInput(const std::string& path, std::string_view format) {
  const std::vector<std::string_view> known = GraphInputFormats();
  if (std::find(known.begin(), known.end(), format) == known.end()) {
    return InvalidArgument(fmt::format("unknown input format '{}' (known: {})", format, fmt::join(known, ", ")));
  }
  GraphInput in;
  if (IsTraceFormat(format)) {
    in.format = std::string(format);
  } else if (format == "auto") {
    GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path));
    if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected a trace or a task graph", path));
    in.format = std::string(DetectGraphFormat(path, content));
  } else {
    in.format = std::string(format);
  }
  if (in.format == "trace" || IsTraceFormat(in.format)) {
    Result<Trace> read = ReadTrace(path, in.format == "trace" ? "auto" : in.format);
    if (!read.ok() && in.format == "trace" && read.status().message().starts_with(path + ": unrecognised")) {
      return DataLoss(fmt::format("{}: neither a trace nor a task graph grainscope reads (a seed text trace, the "
                                  "seed's Task_Graph, STG, DOT with Weight= attributes, taskgraph JSON); "
                                  "--input-format names one",
                                  path));
    }
    GS_ASSIGN_OR_RETURN(Trace trace, std::move(read));
    GS_ASSIGN_OR_RETURN(TaskGraph tg, BuildTaskGraph(trace));
    GS_ASSIGN_OR_RETURN(in.dag, DagFromTaskGraph(tg, path));
    in.format = std::string(trace.format());
    in.from_trace = true;
    in.notes = DiagnosticNotes(trace.diagnostics());
    return in;
  }
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected a task graph", path));
  if (in.format == kStgFormat) {
    GS_ASSIGN_OR_RETURN(in.dag, ReadStg(content, path));
  } else if (in.format == kDotFormat) {
    GS_ASSIGN_OR_RETURN(in.dag, ReadDotTaskGraph(content, path));
  } else if (in.format == kSeedTaskGraphFormat) {
    GS_ASSIGN_OR_RETURN(in.dag, ReadSeedTaskGraph(content, path));
  } else {
    GS_ASSIGN_OR_RETURN(in.dag, ReadJsonTaskGraph(content, path));
  }
  if (in.dag.size() == 0) return FailedPrecondition(fmt::format("{}: the task graph has no tasks", path));
  return in;
}

}  // namespace grainscope
