#include <memory>

#include "analysis/profile/profile.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"

namespace grainscope::cli {

CommandBody AddReportCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "report", "The seed's general performance report: speedup, corrected speedup, overall and "
                "per-processor utilisation, and each grain's share of the total time");
  AddCommonOptions(*cmd, *o, {"text", "json", "csv"}, false);
  return [o] {
    return Run("report", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o->trace, o->input_format, r));
      GS_ASSIGN_OR_RETURN(ExecutionProfile profile, ComputeProfile(trace));
      GS_ASSIGN_OR_RETURN(std::string out, RenderProfile(trace, profile, r));
      return Emit(out, *o, r.notes);
    });
  };
}

}  // namespace grainscope::cli
