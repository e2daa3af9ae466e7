#include <memory>

#include "analysis/critpath/critpath.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"

namespace grainscope::cli {

CommandBody AddCritPathCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto latency = std::make_shared<int64_t>(0);
  CLI::App* cmd = app.add_subcommand(
      "critpath", "The critical path: the chain of work (across messages and collectives) that set the "
                  "run time, its profile per region, imbalance, slack per grain, and the efficiency "
                  "factors (load balance, serialisation, transfer)");
  AddCommonOptions(*cmd, *o, {"text", "json", "csv"}, false);
  cmd->add_option("--latency", *latency, "Nanoseconds added to every message and collective edge")
      ->check(NonNegativeInteger("nanoseconds"))
      ->capture_default_str();
  return [o, latency] {
    return Run("critpath", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, ReadTrace(o->trace, o->input_format));
      CritPathOptions options;
      options.message_latency_ns = *latency;
      GS_ASSIGN_OR_RETURN(CriticalPath cp, ComputeCriticalPath(trace, options));
      GS_ASSIGN_OR_RETURN(std::string out, RenderCriticalPath(trace, cp, r));
      return Emit(out, *o);
    });
  };
}

}  // namespace grainscope::cli
