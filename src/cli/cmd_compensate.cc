#include <memory>
#include <optional>

#include "analysis/compensate/compensate.h"
#include "base/numbers.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"

namespace grainscope::cli {

CommandBody AddCompensateCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto overhead = std::make_shared<std::optional<std::string>>();
  CLI::App* cmd = app.add_subcommand(
      "compensate", "Overhead compensation: what the run would have taken without measurement overhead. "
                    "Takes the per-event overhead off every segment and propagates the delay through "
                    "messages and collectives (Malony/Shende); shows measured and compensated side by side");
  AddCommonOptions(*cmd, *o, {"text", "json", "csv"}, false, /*with_output=*/false);
  cmd->add_option("-o,--output", o->output,
                  "Also write the compensated trace here (format by extension: .otf2, .json, .gst; an existing "
                  "trace only with --force)");
  cmd->add_option("--overhead", *overhead,
                  "Per-event overhead: 12.5 (ns), 12.5ns, 0.02us, to 1/1000 ns (default: the calibration "
                  "stored in the trace)")
      ->check(FineDuration());
  return [o, overhead] {
    return Run("compensate", [&]() -> Status {
      GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(*o));
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o->trace, o->input_format, ReadOptions{o->strict}, r));
      CompensateOptions options;
      if (overhead->has_value()) options.overhead_per_event_ns = ParseFineDurationNs(**overhead).value_or(0);
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
