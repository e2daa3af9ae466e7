#include <algorithm>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>

#include <fmt/format.h>

#include "base/numbers.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "schedule/io/graph_input.h"
#include "schedule/portfolio.h"

namespace grainscope::cli {
namespace {

constexpr uint64_t kNoNodeLimitGiven = std::numeric_limits<uint64_t>::max();

// "1,2,0.5": a finite speed > 0 per processor.
Result<std::vector<double>> ParseSpeeds(const std::string& text) {
  std::vector<double> speeds;
  if (text.empty()) return speeds;
  size_t pos = 0;
  while (true) {
    const size_t comma = std::min(text.find(',', pos), text.size());
    const std::optional<double> v = ParseFiniteDouble(std::string_view(text).substr(pos, comma - pos));
    if (!v || !(*v > 0))
      return InvalidArgument(fmt::format("--speeds: expected finite numbers > 0 separated by commas, got '{}'",
                                         EchoToken(text)));
    speeds.push_back(*v);
    if (comma == text.size()) return speeds;
    pos = comma + 1;
  }
}

struct ScheduleOptions {
  CommonOptions common;
  uint64_t processors = 0;
  std::string heuristic = "best";
  std::string speedup;  // "N" or "A..B"
  std::string speeds;   // "1,2,0.5"
  uint64_t node_limit = kNoNodeLimitGiven;
  double time_limit_s = 0;
};

Status RunSchedule(const ScheduleOptions& o) {
  GS_ASSIGN_OR_RETURN(RenderOptions r, MakeRenderOptions(o.common));
  const Heuristic h = *ParseHeuristic(o.heuristic);
  std::optional<std::pair<uint32_t, uint32_t>> range;
  if (!o.speedup.empty()) {
    range = ParseProcessorRange(o.speedup);
    if (!range) return InvalidArgument(fmt::format("--speedup expects N or A..B processors, got '{}'", o.speedup));
    if (!o.speeds.empty()) return InvalidArgument("--speedup projects identical processors: it cannot be used with --speeds");
  }
  Machine m;
  m.processors = static_cast<uint32_t>(o.processors);
  GS_ASSIGN_OR_RETURN(m.speeds, ParseSpeeds(o.speeds));
  GS_RETURN_IF_ERROR(CheckMachine(m));
  PortfolioOptions po;
  if (o.node_limit != kNoNodeLimitGiven) po.exact.node_limit = po.best_node_limit = o.node_limit;
  po.exact.time_limit_s = o.time_limit_s;
  GS_ASSIGN_OR_RETURN(GraphInput in, ReadGraphInput(o.common.trace, o.common.input_format, ReadOptions{o.common.strict}));
  r.notes = in.notes;
  GS_ASSIGN_OR_RETURN(Schedule s, RunHeuristic(in.dag, m, h, po));
  std::vector<SpeedupPoint> curve;
  if (range) {
    GS_ASSIGN_OR_RETURN(curve, SpeedupCurve(in.dag, h, range->first, range->second, po));
  }
  GS_ASSIGN_OR_RETURN(std::string out, RenderSchedule(in.dag, m, s, o.heuristic, curve, r));
  return Emit(out, o.common, r.notes);
}

}  // namespace

CommandBody AddScheduleCommand(CLI::App& app) {
  auto o = std::make_shared<ScheduleOptions>();
  CLI::App* cmd = app.add_subcommand(
      "schedule", "Project a task graph onto P processors: the Gantt chart a scheduling heuristic gives, its "
                  "length (makespan) and, with --speedup, the projected speedup curve. GRAPH is a trace (its "
                  "task graph is used, times in ns) or a task-graph file: the seed's Task_Graph, STG, DOT with "
                  "Weight= attributes, or the JSON of `grainscope taskgraph --format json`");
  cmd->add_option("GRAPH", o->common.trace, "Trace or task-graph file to read")->required();
  std::vector<std::string> inputs;
  for (std::string_view f : GraphInputFormats()) inputs.emplace_back(f);
  cmd->add_option("--input-format", o->common.input_format,
                  "Format of GRAPH (default: detected from its extension and content)")
      ->check(CLI::IsMember(inputs));
  AddReadOptions(*cmd, o->common.strict);
  AddIntegerOption(*cmd, "-p,--processors", o->processors, 1, kMaxProcessors, "processors", "Number of processors")
      ->required();
  cmd->add_option("--heuristic", o->heuristic,
                  "hlfet, etf, mcp, heft, dsc, exact (branch and bound: proven optimum within its limits), or "
                  "best (the shortest of the five heuristics, improved by a short exact search)")
      ->check(CLI::IsMember({"hlfet", "etf", "mcp", "heft", "dsc", "exact", "best"}))
      ->capture_default_str();
  cmd->add_option("--speedup", o->speedup, "Also project every processor count in N (1..N) or A..B");
  cmd->add_option("--speeds", o->speeds, "Relative speed of each processor, comma separated (default: all 1)");
  AddIntegerOption(*cmd, "--node-limit", o->node_limit, 0, std::numeric_limits<int64_t>::max(), "partial schedules",
                   "Partial schedules the exact search may examine (default 1000000 for exact, 20000 for best; "
                   "0: no limit)")
      ->default_str("");
  AddSecondsOption(*cmd, "--time-limit", o->time_limit_s,
                   "How long the exact search may run: 30 (s), 500ms, ... (default: none; a limit makes the output "
                   "depend on the machine)")
      ->default_str("");
  cmd->add_option("-f,--format", o->common.format, "Output format")
      ->check(CLI::IsMember({"text", "json", "seed"}))
      ->capture_default_str();
  cmd->add_option("-o,--output", o->common.output, kOutputHelp);
  AddForceOption(*cmd, o->common.force);
  cmd->add_option("--unit", o->common.unit, "Integer time unit of the seed Schedule file for a trace's graph")
      ->check(CLI::IsMember({"s", "ms", "us", "ns"}))
      ->capture_default_str();
  AddTopOptions(*cmd, o->common.top, o->common.all);
  cmd->footer(std::string(kExitCodesHelp));
  return [o] { return Run("schedule", [&]() -> Status { return RunSchedule(*o); }); };
}

}  // namespace grainscope::cli
