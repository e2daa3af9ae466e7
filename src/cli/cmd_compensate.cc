#include <memory>

#include "analysis/compensate/compensate.h"
#include "base/numbers.h"
#include "base/progress.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"

namespace grainscope::cli {

CommandBody AddCompensateCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto overhead = std::make_shared<double>(0);
  CLI::App* cmd = app.add_subcommand(
      "compensate", "Overhead compensation: what the run would have taken without measurement overhead. "
                    "Takes the per-event overhead off every segment and propagates the delay through "
                    "messages and collectives (Malony/Shende); shows measured and compensated side by side");
  AddCommonOptions(*cmd, *o, {"text", "json", "csv"}, false, /*with_output=*/false);
  cmd->add_option("-o,--output", o->output,
                  "Also write the compensated trace here (format by extension: .otf2, .json, .gst; an existing "
                  "trace only with --force)");
  CLI::Option* overhead_option = AddFineDurationOption(
      *cmd, "--overhead", *overhead,
      "Per-event overhead: 14.2 (ns, up to 3 decimals), 10ns, 0.5us (default: the calibration stored in the trace)");
  return [o, overhead, overhead_option] {
    return Run("compensate", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o->trace, o->input_format, ReadOptions{o->strict}, r));
      CompensateOptions options;
      if (overhead_option->count() > 0) options.overhead_per_event_ns = *overhead;
      progress::Begin("compensating", 0);
      GS_ASSIGN_OR_RETURN(Compensation c, Compensate(trace, options));
      GS_ASSIGN_OR_RETURN(std::string out, RenderCompensation(trace, c, r));
      if (!o->output.empty()) {
        GS_ASSIGN_OR_RETURN(Trace compensated, trace.Retimed(std::move(c.times), "+compensated"));
        GS_RETURN_IF_ERROR(WriteTrace(compensated, o->output, "auto", OutputPolicy(*o), &r.notes));
      }
      return Emit(out, "", r.notes);
    });
  };
}

}  // namespace grainscope::cli
