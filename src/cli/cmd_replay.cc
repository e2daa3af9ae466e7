#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/clc.h"
#include "analysis/regions/straggler.h"
#include "analysis/replay/replay.h"
#include "base/numbers.h"
#include "base/progress.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/replay_options.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "report/units.h"

namespace grainscope::cli {
namespace {

// Reads the trace, replays it under the flags' what-if and renders the result.
Status RunReplay(const CommonOptions& o, ReplayFlags& f) {
  GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(o));
  GS_ASSIGN_OR_RETURN(WhatIf what_if, MakeWhatIf(f));
  GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o.trace, o.input_format, ReadOptions{o.strict}, r));
  if (f.NeedsFit(what_if)) GS_RETURN_IF_ERROR(ApplyFit(FitLatencyBandwidth(trace), f, what_if));
  if (!f.unstraggle.empty()) {
    GS_ASSIGN_OR_RETURN(const StragglerPlan plan, PlanUnstraggle(trace, f.unstraggle));
    ApplyUnstraggle(trace, plan, f, what_if);
  }
  ClockViolations violations_before;
  if (f.clc) {
    progress::Begin("correcting clocks", 0);
    GS_ASSIGN_OR_RETURN(ClcResult clc, ControlledLogicalClock(trace, ClcOptions{f.min_latency_ns}));
    violations_before = clc.violations;
    GS_ASSIGN_OR_RETURN(trace, trace.Retimed(std::move(clc.times), "+clc"));
  }
  progress::Begin("replaying", 0);
  GS_ASSIGN_OR_RETURN(ReplayResult result, Replay(trace, what_if));
  if (f.clc) {
    result.clock_violations = violations_before;
    result.clocks_corrected = true;
  }
  GS_ASSIGN_OR_RETURN(Trace replayed, trace.Retimed(std::move(result.times), "+replay"));
  progress::Begin("critical path of the replay", 0);
  GS_ASSIGN_OR_RETURN(CriticalPath cp, ComputeCriticalPath(replayed));
  GS_ASSIGN_OR_RETURN(std::string out, RenderReplay(trace, result, cp, Describe(what_if, f), r));
  if (!o.output.empty()) GS_RETURN_IF_ERROR(WriteTrace(replayed, o.output, "auto", OutputPolicy(o), &r.notes));
  return Emit(out, "", r.notes);
}

}  // namespace

CommandBody AddReplayCommand(CLI::App& app) {
  auto o = std::make_shared<CommonOptions>();
  auto f = std::make_shared<ReplayFlags>();
  CLI::App* cmd = app.add_subcommand(
      "replay", "Timestamp correction and what-if replay: recompute every event's time with measured or "
                "modelled costs (another network, faster CPUs, a region removed) and predict the run time; "
                "also checks that replaying the measured costs reproduces the trace");
  AddCommonOptions(*cmd, *o, {"text", "json"}, false, /*with_output=*/false);
  cmd->add_option("-o,--output", o->output,
                  "Also write the replayed trace here (format by extension: .otf2, .json, .gst; an existing "
                  "trace only with --force)");
  AddReplayModelOptions(*cmd, *f);
  AddUnstraggleOption(*cmd, *f);
  AddReplaySpeedOptions(*cmd, *f);
  AddClcOptions(*cmd, *f);
  return [o, f] {
    return Run("replay", [&]() -> Status { return RunReplay(*o, *f); });
  };
}

}  // namespace grainscope::cli
