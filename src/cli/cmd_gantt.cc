#include <memory>

#include "analysis/profile/profile.h"
#include "analysis/regions/time_classes.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"

namespace grainscope::cli {

CommandBody AddGanttCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "gantt", "The actual Gantt chart: each processor's grains in start order, and the periods it was "
               "blocked (lock, condition, join, barrier, MPI wait) apart from its work. --format seed writes "
               "the seed's Schedule file, --format svg a standalone figure with grains coloured by length");
  AddCommonOptions(*cmd, *o, {"text", "json", "csv", "seed", "svg"}, true);
  return [o] {
    return Run("gantt", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o->trace, o->input_format, ReadOptions{o->strict}, r));
      std::vector<GanttLane> lanes = BuildGantt(trace);
      const std::vector<std::vector<BlockedSpan>> blocked = ComputeBlockedSpans(trace);
      return EmitStream([&](TextSink& out) { return WriteGantt(trace, lanes, blocked, r, out); }, *o, r.notes);
    });
  };
}

}  // namespace grainscope::cli
