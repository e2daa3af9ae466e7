#include <memory>

#include "analysis/taskgraph/taskgraph.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"

namespace grainscope::cli {

CommandBody AddTaskGraphCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "taskgraph", "The task graph as it ran: one node per grain with its measured time, one edge per "
                   "message with its measured cost (send begin to arrival, the receiver's waiting excluded). --format seed writes the "
                   "seed's Task_Graph file, dot a Graphviz graph with Weight= attributes");
  AddCommonOptions(*cmd, *o, {"text", "json", "seed", "dot"}, true);
  return [o] {
    return Run("taskgraph", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o->trace, o->input_format, ReadOptions{o->strict}, r));
      GS_ASSIGN_OR_RETURN(TaskGraph graph, BuildTaskGraph(trace));
      return EmitStream([&](TextSink& out) { return WriteTaskGraph(trace, graph, r, out); }, *o, r.notes);
    });
  };
}

}  // namespace grainscope::cli
