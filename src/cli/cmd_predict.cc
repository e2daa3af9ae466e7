#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"
#include "schedule/portfolio.h"
#include "schedule/predict.h"

namespace grainscope::cli {
namespace {

struct PredictOptions {
  CommonOptions common;
  std::string processors;  // "N" or "A..B"
  std::vector<std::string> actual;
  std::string heuristic = "best";
};

Status RunPredict(const PredictOptions& o) {
  GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(o.common));
  std::optional<std::pair<uint32_t, uint32_t>> range = ParseProcessorRange(o.processors);
  if (!range) return InvalidArgument(fmt::format("-p expects N or A..B processors, got '{}'", o.processors));
  GS_ASSIGN_OR_RETURN(Trace measured, LoadTrace(o.common.trace, o.common.input_format, ReadOptions{o.common.strict}, r));
  std::vector<Trace> others;
  for (const std::string& file : o.actual) {
    GS_ASSIGN_OR_RETURN(Trace t, LoadTrace(file, o.common.input_format, ReadOptions{o.common.strict}, r));
    others.push_back(std::move(t));
  }
  std::vector<NamedTrace> actual;
  for (size_t i = 0; i < others.size(); ++i) actual.push_back(NamedTrace{o.actual[i], &others[i]});
  GS_ASSIGN_OR_RETURN(Prediction p, Predict(NamedTrace{o.common.trace, &measured}, actual, *ParseHeuristic(o.heuristic),
                                            range->first, range->second, PortfolioOptions{}));
  GS_ASSIGN_OR_RETURN(std::string out, RenderPrediction(p, r));
  return Emit(out, o.common, r.notes, o.actual);
}

}  // namespace

CommandBody AddPredictCommand(CLI::App& app) {
  auto o = std::make_shared<PredictOptions>();
  CLI::App* cmd = app.add_subcommand(
      "predict", "The seed's prediction loop: the task graph of a measured run, its projected run time and "
                 "speedup on 1..N processors, and the projection's error against runs of the same program on "
                 "other processor counts (--actual), split into the model's error (the run's own schedule "
                 "replayed in the model) and the scheduler's; --format svg draws the speedup curve against those runs");
  AddCommonOptions(*cmd, o->common, {"text", "json", "svg"}, false);
  cmd->add_option("-p,--processors", o->processors, "Processor counts to project: N (1..N) or A..B")->required();
  cmd->add_option("--actual", o->actual,
                  "Trace of the same program run on another processor count, to compare with the projection "
                  "(repeatable)");
  cmd->add_option("--heuristic", o->heuristic, "Scheduling heuristic (see `grainscope schedule --help`)")
      ->check(CLI::IsMember({"hlfet", "etf", "mcp", "heft", "dsc", "exact", "best"}))
      ->capture_default_str();
  return [o] { return Run("predict", [&]() -> Status { return RunPredict(*o); }); };
}

}  // namespace grainscope::cli
