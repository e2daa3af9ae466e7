#include <memory>

#include "analysis/critpath/critpath.h"
#include "base/progress.h"
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
  AddDurationOption(*cmd, "--latency", *latency, "Added to every message and collective edge (5us, 250ns, ...)");
  return [o, latency] {
    return Run("critpath", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o->trace, o->input_format, ReadOptions{o->strict}, r));
      CritPathOptions options;
      options.message_latency_ns = *latency;
      progress::Begin("critical path", 0);
      GS_ASSIGN_OR_RETURN(CriticalPath cp, ComputeCriticalPath(trace, options));
      return EmitStream([&](TextSink& out) { return WriteCriticalPath(trace, cp, r, out); }, *o, r.notes);
    });
  };
}

}  // namespace grainscope::cli
