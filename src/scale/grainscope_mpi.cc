// grainscope-mpi: grainscope's analyses of one OTF2 trace on N MPI ranks, Scalasca's parallel
// replay design (docs/scale.md "Many processes"):
//
//   mpirun -np N grainscope-mpi critpath TRACE.otf2 [--format text|json|csv] [-o FILE] ...
//
// Each rank reads every definition and only its share of the locations' events (ReadOtf2Share),
// the shares complete each other's messages and collectives, the sweeps run over the shares with
// MPI messages carrying their values, and rank 0 writes what `grainscope critpath` writes: the
// same bytes on stdout or in -o's file. The notes (stderr; JSON's "notes") are the shares' own,
// each labelled with its share unless every share has it (scale/share_notes.h).
#include <memory>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <mpi.h>

#include "analysis/critpath/critpath_shares.h"
#include "base/progress.h"
#include "cli/common.h"
#include "cli/version.h"
#include "format/otf2/otf2_reader.h"
#include "report/critpath_report.h"
#include "scale/mpi_share_exchange.h"
#include "scale/share_notes.h"

namespace grainscope {
namespace {

struct Rank {
  int index = 0, count = 1;
};

// Only OTF2 is read in shares: its event files are per location.
Status CheckInputFormat(const cli::CommonOptions& o) {
  if (o.input_format == "auto" || o.input_format == "otf2") return OkStatus();
  return InvalidArgument(fmt::format("grainscope-mpi reads OTF2 archives only, not --input-format {}", o.input_format));
}

// This rank's share of `o.trace`, completed by the others; the notes of every share on rank 0.
Result<TraceShare> ReadShare(const cli::CommonOptions& o, ShareExchange& exchange, RenderOptions& r) {
  GS_RETURN_IF_ERROR(CheckInputFormat(o));
  progress::Begin("reading the trace in shares", 0);
  GS_ASSIGN_OR_RETURN(TraceShare share, ReadOtf2Share(o.trace, ReadOptions{o.strict}, exchange));
  GS_ASSIGN_OR_RETURN(r.notes, GatherShareNotes(share.trace.diagnostics(), exchange));
  return share;
}

Status CritPathOnShares(const cli::CommonOptions& o, TimeNs latency, MpiShareExchange& exchange) {
  GS_ASSIGN_OR_RETURN(RenderOptions r, cli::MakeRenderOptions(o));
  GS_ASSIGN_OR_RETURN(TraceShare share, ReadShare(o, exchange, r));
  progress::Begin("critical path", 0);
  GS_ASSIGN_OR_RETURN(std::optional<CriticalPath> cp, ComputeCriticalPathOfShare(share, exchange, {latency}));
  if (!cp) return OkStatus();  // rank 0 writes
  return cli::EmitStream([&](TextSink& out) { return WriteCriticalPath(share.trace, *cp, r, out); }, o, r.notes);
}

Status CritPath(const cli::CommonOptions& o, TimeNs latency) {
  MpiShareExchange exchange(MPI_COMM_WORLD);
  Status s = CritPathOnShares(o, latency, exchange);
  if (!s.ok()) exchange.Abandon();  // the job ends: no waiting for blobs no rank will receive
  return s;
}

// Runs a command's body on every rank. A rank that fails ends the whole job (the others may be
// waiting for its values), with its reason and grainscope's exit code for it.
int RunOnRanks(const Rank& rank, const char* command, const std::function<Status()>& body) {
  const int rc = cli::Run(command, [&]() -> Status {
    Status s = body();
    if (s.ok() || rank.count == 1) return s;
    return Status(s.code(), fmt::format("rank {} of {}: {}", rank.index, rank.count, s.message()));
  }, "grainscope-mpi");
  if (rc != 0 && rank.count > 1) MPI_Abort(MPI_COMM_WORLD, rc);
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
  if (critpath->parsed()) return RunOnRanks(rank, "critpath", [&] { return CritPath(*o, *latency); });
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
