// `grainscope html TRACE [-o report.html]`: every view of one trace on one offline page
// (report/html_report.h, docs/html.md).
#include <filesystem>
#include <memory>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "analysis/critpath/critpath.h"
#include "analysis/profile/profile.h"
#include "analysis/summary/summary.h"
#include "analysis/waits/characterize.h"
#include "base/progress.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"
#include "report/html_report.h"
#include "schedule/portfolio.h"
#include "schedule/predict.h"

namespace grainscope::cli {
namespace {

struct HtmlOptions {
  std::string trace;
  std::string input_format = "auto";
  bool strict = false;
  std::string output;  // empty: <trace name>.html in the current directory; "-": stdout
  bool force = false;
  std::vector<std::string> actual;
  std::string processors;  // empty: 1..2P, and only for task graphs of at most kAutoPredictTasks grains
  std::string heuristic = "best";
  uint64_t embed_limit = HtmlLimits{}.messages;  // --embed-limit: per layer over the chart
};

// Without -p or --actual the page projects the speedup only for graphs this small: the
// schedulers' cost grows with the graph, and the page should come quickly.
constexpr size_t kAutoPredictTasks = 20'000;

// The page's default name: the trace's file name with its extension replaced ("pi.gst" ->
// "pi.html", "run/" -> "run.html", "." -> "<this directory's name>.html"), in the current directory.
std::string DefaultPageName(const std::string& trace) {
  namespace fs = std::filesystem;
  fs::path p(trace);
  while (p.has_relative_path() && p.filename().empty()) p = p.parent_path();
  if (p.filename().empty() || p.filename() == "." || p.filename() == "..") {
    std::error_code ec;
    p = fs::weakly_canonical(p, ec);
  }
  const std::string stem = p.stem().string();
  return (stem.empty() ? std::string("trace") : stem) + ".html";
}

uint32_t GrainLanes(const ExecutionProfile* p) {
  uint32_t n = 0;
  if (p)
    for (const ProcessorProfile& proc : p->processors) n += proc.busy_ns > 0;
  return n;
}

using ProcessorRange = std::pair<uint32_t, uint32_t>;

// The speedup projection, computed only when asked for (-p, --actual) or when the profile has at
// most kAutoPredictTasks grains; nullopt when it is not computed, after a note in `notes` when the
// graph was too large for it to come quickly.
std::optional<Result<Prediction>> ProjectSpeedup(const HtmlOptions& o, const std::optional<ProcessorRange>& range,
                                                 const Trace& trace, const std::vector<Trace>& others,
                                                 const ExecutionProfile* profile, std::vector<std::string>& notes) {
  size_t grains = 0;
  if (profile)
    for (const ProcessorProfile& p : profile->processors) grains += p.grains.size();
  if (range || !o.actual.empty() || (grains > 0 && grains <= kAutoPredictTasks)) {
    const uint32_t lanes = std::max<uint32_t>(1, GrainLanes(profile));
    const auto [from, to] = range ? *range : ProcessorRange{1, std::min<uint32_t>(64, 2 * lanes)};
    std::vector<NamedTrace> actual;
    for (size_t i = 0; i < others.size(); ++i) actual.push_back(NamedTrace{o.actual[i], &others[i]});
    return Predict(NamedTrace{o.trace, &trace}, actual, *ParseHeuristic(o.heuristic), from, to, PortfolioOptions{});
  }
  if (grains > kAutoPredictTasks) {
    notes.push_back(fmt::format("speedup projection: skipped for {} grains (pass -p or --actual to compute it)",
                                grains));
  }
  return std::nullopt;
}

// The page to -o, or to its default name (said on stderr, since the user did not choose it).
Status WritePage(const HtmlOptions& o, const std::string& page, const std::vector<std::string>& notes) {
  std::vector<std::string> inputs = o.actual;
  inputs.insert(inputs.begin(), o.trace);
  const std::string page_path = o.output.empty() ? DefaultPageName(o.trace) : o.output;
  GS_RETURN_IF_ERROR(Emit(page, page_path, notes, OutputPolicy(o.force, std::move(inputs))));
  if (o.output.empty()) fmt::print(stderr, "grainscope html: wrote {}\n", page_path);
  return OkStatus();
}

Status RunHtml(const HtmlOptions& o) {
  std::optional<ProcessorRange> range;
  if (!o.processors.empty()) {
    range = ParseProcessorRange(o.processors);
    if (!range) return InvalidArgument(fmt::format("-p expects N or A..B processors, got '{}'", o.processors));
  }
  RenderOptions reader;  // collects the traces' notes
  reader.source = o.trace;
  GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(o.trace, o.input_format, ReadOptions{o.strict}, reader));
  std::vector<Trace> others;
  for (const std::string& file : o.actual) {
    GS_ASSIGN_OR_RETURN(Trace t, LoadTrace(file, o.input_format, ReadOptions{o.strict}, reader));
    others.push_back(std::move(t));
  }
  HtmlReportInputs in;
  in.notes = reader.notes;
  in.source = o.trace;
  in.trace = &trace;
  progress::Begin("summary and profile", 0);
  const TraceSummary summary = Summarize(trace);
  in.summary = &summary;
  Result<ExecutionProfile> profile = ComputeGrainView(trace);
  if (profile.ok()) in.profile = &*profile;
  else in.notes.push_back("EPA report: " + profile.status().message());
  const TimeBreakdown time = ComputeTimeBreakdown(trace);
  const RegionProfile regions = ComputeRegionProfile(trace);
  in.time = &time;
  in.regions = &regions;
  progress::Begin("critical path", 0);
  Result<CriticalPath> path = ComputeCriticalPath(trace);
  if (path.ok()) in.critical_path = &*path;
  else in.notes.push_back("critical path: " + path.status().message());
  progress::Begin("wait states", 0);
  const CallSites calls = FindCallSites(trace);
  const WaitStates waits = FindWaitStates(trace, calls);
  const Characterization characterization = Characterize(trace, calls, waits);
  in.waits = &waits;
  in.characterization = &characterization;
  progress::Begin("speedup projection", 0);
  const std::optional<Result<Prediction>> prediction = ProjectSpeedup(o, range, trace, others, in.profile, in.notes);
  if (prediction && prediction->ok()) in.prediction = &**prediction;
  else if (prediction) in.notes.push_back("speedup projection: " + prediction->status().message());
  progress::Begin("writing the page", 0);
  HtmlLimits limits;
  limits.messages = limits.waits = limits.blocked = limits.path_segments = o.embed_limit;
  GS_ASSIGN_OR_RETURN(std::string page, RenderHtmlReport(in, limits));
  return WritePage(o, page, reader.notes);
}

}  // namespace

CommandBody AddHtmlCommand(CLI::App& app) {
  auto o = std::make_shared<HtmlOptions>();
  CLI::App* cmd = app.add_subcommand(
      "html", "One self-contained HTML page (works offline) with every view of the trace: the Gantt chart "
              "(zoom, pan, selection, lane filter; messages, wait states and the critical path drawn on it), "
              "the EPA report, the critical-path profile, the wait states and the projected speedup");
  cmd->add_option("TRACE", o->trace, "Trace file to read")->required();
  std::vector<std::string> inputs;
  for (std::string_view f : ReadableFormats()) inputs.emplace_back(f);
  cmd->add_option("--input-format", o->input_format, "Format of TRACE (default: detected from its content)")
      ->check(CLI::IsMember(inputs));
  AddReadOptions(*cmd, o->strict);
  cmd->add_option("-o,--output", o->output,
                  "Write the page to this file (default: the trace's name with .html for its extension, in the "
                  "current directory: pi.gst -> pi.html; - for stdout); atomically, and an existing file is "
                  "replaced only with --force");
  AddForceOption(*cmd, o->force);
  cmd->add_option("--actual", o->actual,
                  "Trace of the same program run on another processor count, shown against the projected speedup "
                  "(repeatable)");
  cmd->add_option("-p,--processors", o->processors,
                  "Processor counts to project: N (1..N) or A..B (default: 1..2x the processors that ran grains, "
                  "for task graphs of at most 20000 grains)");
  AddIntegerOption(*cmd, "--embed-limit", o->embed_limit, 0, UINT32_MAX, "items",
                   "Items of each layer drawn over the chart (messages, launch/sync arrows, wait states, blocked "
                   "periods, critical-path stretches) embedded one by one; a layer with more is drawn as a summary "
                   "of where it lies, and the status line says so");
  cmd->add_option("--heuristic", o->heuristic, "Scheduling heuristic (see `grainscope schedule --help`)")
      ->check(CLI::IsMember({"hlfet", "etf", "mcp", "heft", "dsc", "exact", "best"}))
      ->capture_default_str();
  cmd->footer(std::string(kExitCodesHelp));
  return [o] { return Run("html", [&]() -> Status { return RunHtml(*o); }); };
}

}  // namespace grainscope::cli
