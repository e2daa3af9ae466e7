#include <memory>

#include "analysis/summary/summary.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"

namespace grainscope::cli {

CommandBody AddInfoCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "What is in a trace: format, locations, events, messages, time span, and the warnings "
              "its reader counted (skipped lines, unmatched messages)");
  AddCommonOptions(*cmd, *o, {"text", "json"}, false);
  return [o] {
    return Run("info", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, ReadTrace(o->trace, o->input_format, ReadOptions{o->strict}));
      GS_ASSIGN_OR_RETURN(std::string out, RenderInfo(trace, Summarize(trace), r));
      return Emit(out, *o, {}) /* info lists the diagnostics itself */;
    });
  };
}

}  // namespace grainscope::cli
