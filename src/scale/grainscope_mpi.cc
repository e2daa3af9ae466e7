// grainscope-mpi: grainscope's analyses of one OTF2 trace on N MPI ranks, Scalasca's parallel
// replay design (docs/scale.md "Many processes"):
//
//   mpirun -np N grainscope-mpi critpath TRACE.otf2 [--format text|json|csv] [-o FILE] ...
//   mpirun -np N grainscope-mpi replay TRACE.otf2 [--network ...] [--speed ...] ...
//
// Each rank reads every definition and only its share of the locations' events (ReadOtf2Share),
// the shares complete each other's messages and collectives, the sweeps run over the shares with
// MPI messages carrying their values, and rank 0 writes what `grainscope critpath` (`replay`)
// writes: the same bytes on stdout or in -o's file. The notes (stderr; JSON's "notes") are the shares' own,
// each labelled with its share unless every share has it (scale/share_notes.h).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <mpi.h>

#include "analysis/critpath/critpath_shares.h"
#include "analysis/replay/replay_shares.h"
#include "base/output_target.h"
#include "base/progress.h"
#include "cli/common.h"
#include "cli/replay_options.h"
#include "cli/version.h"
#include "format/otf2/otf2_reader.h"
#include "report/critpath_report.h"
#include "report/replay_report.h"
#include "scale/mpi_share_exchange.h"
#include "scale/share_notes.h"

namespace grainscope {
namespace {

struct Rank {
  int index = 0, count = 1;
};

// `r`, once every rank has it: a failure every rank has (the same options, the same trace) is one
// failure all agree on, which rank 0 alone says (RunOnRanks).
template <class T>
Result<T> Agreed(Result<T> r, ShareExchange& exchange) {
  GS_RETURN_IF_ERROR(AgreeOnStatus(r.status(), exchange));
  return r;
}

// What must hold before any rank reads: only OTF2 is read in shares (its event files are per
// location), and -o's path is one rank 0 may write (checked again when it writes).
Status CheckStart(const cli::CommonOptions& o, uint32_t rank) {
  if (o.input_format != "auto" && o.input_format != "otf2")
    return InvalidArgument(fmt::format("grainscope-mpi reads OTF2 archives only, not --input-format {}", o.input_format));
  if (rank != 0 || o.output.empty()) return OkStatus();
  return OutputTarget::Claim("a regular file", {OutputPart{o.output, AnyRegularFile, nullptr}}, cli::OutputPolicy(o))
      .status();
}

// This rank's share of `o.trace`, completed by the others; the notes of every share on rank 0.
Result<TraceShare> ReadShare(const cli::CommonOptions& o, ShareExchange& exchange, RenderOptions& r) {
  GS_RETURN_IF_ERROR(AgreeOnStatus(CheckStart(o, exchange.index()), exchange));
  progress::Begin("reading the trace in shares", 0);
  GS_ASSIGN_OR_RETURN(TraceShare share, ReadOtf2Share(o.trace, ReadOptions{o.strict}, exchange));
  GS_ASSIGN_OR_RETURN(r.notes, GatherShareNotes(share.trace.diagnostics(), exchange));
  return share;
}

Status CritPathOnShares(const cli::CommonOptions& o, TimeNs latency, MpiShareExchange& exchange) {
  GS_ASSIGN_OR_RETURN(RenderOptions r, Agreed(cli::MakeRenderOptions(o), exchange));
  GS_ASSIGN_OR_RETURN(TraceShare share, ReadShare(o, exchange, r));
  progress::Begin("critical path", 0);
  GS_ASSIGN_OR_RETURN(std::optional<CriticalPath> cp, ComputeCriticalPathOfShare(share, exchange, {latency}));
  if (!cp) return OkStatus();  // rank 0 writes
  return cli::EmitStream([&](TextSink& out) { return WriteCriticalPath(share.trace, *cp, r, out); }, o, r.notes);
}

Status ReplayOnShares(const cli::CommonOptions& o, cli::ReplayFlags& f, MpiShareExchange& exchange) {
  GS_ASSIGN_OR_RETURN(RenderOptions r, Agreed(cli::MakeRenderOptions(o), exchange));
  GS_ASSIGN_OR_RETURN(WhatIf what_if, Agreed(cli::MakeWhatIf(f), exchange));
  GS_ASSIGN_OR_RETURN(TraceShare share, ReadShare(o, exchange, r));
  if (f.NeedsFit(what_if)) {
    GS_ASSIGN_OR_RETURN(const NetworkFit fit, FitLatencyBandwidthOfShare(share, exchange));
    GS_RETURN_IF_ERROR(AgreeOnStatus(cli::ApplyFit(fit, f, what_if), exchange));
  }
  if (!f.unstraggle.empty()) {
    GS_ASSIGN_OR_RETURN(const ProcessComputation computation, ComputeProcessComputationOfShare(share, exchange));
    GS_ASSIGN_OR_RETURN(const StragglerPlan plan, Agreed(PlanUnstraggle(share.trace, f.unstraggle, computation), exchange));
    cli::ApplyUnstraggle(share.trace, plan, f, what_if);
  }
  ClockViolations before;
  if (f.clc) {
    progress::Begin("correcting clocks", 0);
    GS_ASSIGN_OR_RETURN(share, CorrectClocksOfShare(share, exchange, ClcOptions{f.min_latency_ns}, before));
  }
  progress::Begin("replaying", 0);
  GS_ASSIGN_OR_RETURN(std::optional<SharedReplay> replayed, ReplayShare(share, exchange, what_if));
  if (!replayed) return OkStatus();  // rank 0 writes
  if (f.clc) {
    replayed->result.clock_violations = before;
    replayed->result.clocks_corrected = true;
  }
  GS_ASSIGN_OR_RETURN(std::string out, RenderReplay(share.trace, replayed->result, replayed->replayed_path,
                                                    cli::Describe(what_if, f), r));
  return cli::Emit(out, "", r.notes);
}

// Runs a command's body on every rank. A failure every rank agreed on (model/share_exchange.h:
// AgreeOnStatus) is said once, by rank 0, and every rank exits with grainscope's exit code for
// it. A rank that fails alone ends the whole job (the others may be waiting for its values), with
// its reason.
int RunOnRanks(const Rank& rank, const char* command, const std::function<Status(MpiShareExchange&)>& body) {
  MpiShareExchange exchange(MPI_COMM_WORLD);
  const int rc = cli::Run(command, [&]() -> Status {
    Status s = body(exchange);
    if (s.ok()) return s;
    exchange.Abandon();  // blobs sent and never to be received are not waited for
    if (rank.count == 1 || exchange.failure_agreed()) return s;
    return Status(s.code(), fmt::format("rank {} of {}: {}", rank.index, rank.count, s.message()));
  }, "grainscope-mpi", [&](const Status&) { return rank.index == 0 || !exchange.failure_agreed(); });
  if (rc != 0 && rank.count > 1 && !exchange.failure_agreed()) MPI_Abort(MPI_COMM_WORLD, rc);
  return rc;
}

int Main(int argc, char** argv, const Rank& rank) {
  CLI::App app{"grainscope-mpi: grainscope's analyses of an OTF2 trace on N MPI ranks, each reading and "
               "replaying a share of its locations (run as mpirun -np N grainscope-mpi COMMAND TRACE)"};
  app.name("grainscope-mpi");
  app.require_subcommand(1);
  app.footer(std::string(cli::kExitCodesHelp));
  app.set_version_flag("--version", "grainscope-mpi " + std::string(cli::Version()) + " (commit " +
                                        std::string(cli::Commit()) + ")");
  auto o = std::make_shared<cli::CommonOptions>();
  auto latency = std::make_shared<int64_t>(0);
  CLI::App* critpath = app.add_subcommand(
      "critpath", "The critical path, as grainscope critpath computes it, from shares of the trace on MPI ranks; "
                  "rank 0 writes the result");
  cli::AddCommonOptions(*critpath, *o, {"text", "json", "csv"}, false);
  cli::AddDurationOption(*critpath, "--latency", *latency, "Added to every message and collective edge (5us, 250ns, ...)");
  auto ro = std::make_shared<cli::CommonOptions>();
  auto rf = std::make_shared<cli::ReplayFlags>();
  CLI::App* replay = app.add_subcommand(
      "replay", "What-if replay, as grainscope replay computes it, from shares of the trace on MPI ranks; rank 0 "
                "writes the result (not yet over ranks: -o's replayed trace)");
  cli::AddCommonOptions(*replay, *ro, {"text", "json"}, false, /*with_output=*/false);
  cli::AddReplayModelOptions(*replay, *rf);
  cli::AddUnstraggleOption(*replay, *rf);
  cli::AddReplaySpeedOptions(*replay, *rf);
  cli::AddClcOptions(*replay, *rf);
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version: rank 0 says it
    return rank.index == 0 ? app.exit(e) : 0;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    if (rank.index == 0) cli::PrintErrorLine("grainscope-mpi: " + what + " (see grainscope-mpi --help)");
    return cli::kExitUsage;
  }
  if (critpath->parsed()) return RunOnRanks(rank, "critpath", [&](auto& x) { return CritPathOnShares(*o, *latency, x); });
  if (replay->parsed()) return RunOnRanks(rank, "replay", [&](auto& x) { return ReplayOnShares(*ro, *rf, x); });
  return cli::kExitUsage;
}

}  // namespace
}  // namespace grainscope

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  grainscope::Rank rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank.index);
  MPI_Comm_size(MPI_COMM_WORLD, &rank.count);
  const int rc = grainscope::Main(argc, argv, rank);
  MPI_Finalize();
  return rc;
}
