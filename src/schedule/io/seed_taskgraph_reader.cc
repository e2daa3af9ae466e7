// The seed's Task_Graph file (Yadav 1989, figure 4.5b; SPEC.md §1). Sample:
//
//   Task_Graph <Identifies a Task Graph file >
//   7 < Total Number of Nodes >
//   2 20 40 80 6 0
//   ...
//   11 < Total Number of Edges >
//   2 3 10
//
// Text between '<' and '>' is a comment. Per node: id, execution time, top, left (screen
// position for TaskGrapher), number of successors, number of predecessors; the last four are
// layout and redundant counts and are not used. Per edge: from, to, communication delay.
#include <map>

#include <fmt/format.h>

#include "schedule/io/readers.h"
#include "schedule/io/text_cursor.h"

namespace grainscope {

Result<TaskDag> ReadSeedTaskGraph(std::string_view content, const std::string& source) {
  TokenCursor in(content, source, CommentStyle::kAngleBrackets);
  GS_ASSIGN_OR_RETURN(std::string_view magic, in.Next("the keyword Task_Graph"));
  if (magic != "Task_Graph") {
    return in.ErrorHere(fmt::format("expected the keyword Task_Graph (a seed task-graph file), got '{}'", magic));
  }
  GS_ASSIGN_OR_RETURN(const int64_t nodes, in.NextInt("the number of nodes"));
  DagBuilder b(source);
  std::map<int64_t, uint32_t> index;
  for (int64_t k = 0; k < nodes; ++k) {
    const int64_t ordinal = k + 1;
    GS_ASSIGN_OR_RETURN(const int64_t id, in.NextInt(fmt::format("the id of node {} of {}", ordinal, nodes)));
    const uint32_t id_line = in.line();
    GS_ASSIGN_OR_RETURN(const int64_t time, in.NextInt(fmt::format("the execution time of node {}", id)));
    for (const char* field : {"top", "left", "number of successors", "number of predecessors"})
      GS_RETURN_IF_ERROR(in.NextInt(fmt::format("the {} of node {}", field, id)).status());
    if (index.count(id) != 0) return in.ErrorAt(id_line, fmt::format("node {} is defined twice", id));
    index[id] = b.AddTask(id, time);
  }
  GS_ASSIGN_OR_RETURN(const int64_t edges, in.NextInt("the number of edges"));
  for (int64_t k = 0; k < edges; ++k) {
    GS_ASSIGN_OR_RETURN(const int64_t from, in.NextInt(fmt::format("the source node of edge {} of {}", k + 1, edges)));
    auto f = index.find(from);
    if (f == index.end()) return in.ErrorHere(fmt::format("edge {} starts at node {}, which is not defined", k + 1, from));
    GS_ASSIGN_OR_RETURN(const int64_t to, in.NextInt(fmt::format("the target node of edge {}", k + 1)));
    auto t = index.find(to);
    if (t == index.end()) return in.ErrorHere(fmt::format("edge {} ends at node {}, which is not defined", k + 1, to));
    GS_ASSIGN_OR_RETURN(const int64_t delay, in.NextInt(fmt::format("the delay of edge {} -> {}", from, to)));
    b.AddEdge(f->second, t->second, delay);
  }
  if (!in.AtEnd()) {
    return in.ErrorAt(in.line(), fmt::format("expected the end of the file after {} edges, got '{}'", edges, in.Peek()));
  }
  return std::move(b).Build();
}

namespace {
Sniff SniffSeedTaskGraph(const TraceProbe& probe) {
  return FirstWord(probe.head) == "Task_Graph" ? Sniff::kPlausible : Sniff::kNo;
}
}  // namespace

constinit const TaskGraphImporter kSeedTaskGraphImporter{kSeedTaskGraphFormat, SniffSeedTaskGraph, ReadSeedTaskGraph};

}  // namespace grainscope
