#include <memory>

#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"
#include "report/dump_report.h"

namespace grainscope::cli {

CommandBody AddDumpCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "dump", "The trace as its reader modelled it, for diffs and tests: locations, regions, communicators, "
              "each location's events (time, kind, region or peer, tag, bytes, communicator), matched "
              "messages (send event -> receive event), collectives (communicator, root, each member's "
              "enter and leave), unmatched message ends and the reader's diagnostics. Times are ns from "
              "the trace's origin; --top N (default 20) cuts every section, in text and JSON, --all shows "
              "every row");
  AddCommonOptions(*cmd, *o, {"text", "json"}, false);
  // Unlike the reports, a dump cuts its JSON too: a trace's every event is too much to diff.
  cmd->get_option("--top")->description("Rows of each section, in text and JSON");
  cmd->get_option("--all")->description("Every row of every section");
  return [o] {
    return Run("dump", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, ReadTrace(o->trace, o->input_format, ReadOptions{o->strict}));
      GS_ASSIGN_OR_RETURN(std::string out, RenderDump(trace, r));
      return Emit(out, *o, {}) /* the dump lists the diagnostics itself */;
    });
  };
}

}  // namespace grainscope::cli
