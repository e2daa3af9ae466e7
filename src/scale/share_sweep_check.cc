// gs_share_sweep_check [--share-only] TRACE: run under mpirun, each rank reads its share of an OTF2 trace
// (completed through MPI), sweeps the critical path's forward sweep over the shares with real MPI
// messages carrying the values, and compares its own events' values and causes with the sweep of
// the whole trace it also reads. Rank 0 prints the totals; the exit code is 0 when every event of
// the trace was compared and none differs. The check of grainscope-mpi's replay design on 1, 2
// and 4 ranks (ctest: ScaleMpi.*). --share-only: reads and sweeps the shares only, and prints the
// largest peak memory of a rank (what one analysis rank needs; docs/scale.md).
#include <sys/resource.h>

#include <cstdio>
#include <cstring>
#include <string>

#include <mpi.h>

#include "analysis/critpath/critpath.h"
#include "format/otf2/otf2_reader.h"
#include "scale/mpi_share_exchange.h"

namespace grainscope {
namespace {

struct Counts {
  unsigned long long events = 0, differences = 0, whole_events = 0;
};

// This rank's own events, compared with the whole trace's sweep unless `share_only`. Fails with a
// reason.
Result<Counts> Check(const std::string& path, bool share_only) {
  MpiShareExchange exchange(MPI_COMM_WORLD);
  GS_ASSIGN_OR_RETURN(TraceShare share, ReadOtf2Share(path, {}, exchange));
  const HbGraph g(share.trace);
  SweepShares shares(g, share, exchange);
  GS_ASSIGN_OR_RETURN(ForwardSweep swept, SweepCriticalPath(g, {}, shares));
  if (share_only) return Counts{};
  GS_ASSIGN_OR_RETURN(Trace whole, ReadOtf2(path));
  const HbGraph whole_g(whole);
  GS_ASSIGN_OR_RETURN(ForwardSweep expected, SweepCriticalPath(whole_g));
  Counts c;
  c.whole_events = whole.event_count();
  for (uint32_t l = 0; l < whole.locations().size(); ++l) {
    if (!share.locations.Holds(l)) continue;
    for (EventIndex e = 0; e < whole.events(LocationId(l)).size(); ++e) {
      const uint64_t i = g.flat(LocationId(l), e), w = whole_g.flat(LocationId(l), e);
      ++c.events;
      c.differences += swept.value[i] != expected.value[w] || swept.cause[i] != expected.cause[w];
    }
  }
  return c;
}

}  // namespace
}  // namespace grainscope

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const bool share_only = argc == 3 && std::strcmp(argv[1], "--share-only") == 0;
  if (argc != 2 && !share_only) {
    if (rank == 0) std::fprintf(stderr, "usage: mpirun -np N %s [--share-only] TRACE.otf2\n", argv[0]);
    MPI_Finalize();
    return 2;
  }
  grainscope::Result<grainscope::Counts> c = grainscope::Check(argv[argc - 1], share_only);
  if (!c.ok()) {
    std::fprintf(stderr, "rank %d: %s\n", rank, c.status().message().c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (share_only) {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    long peak_kb = u.ru_maxrss, largest = 0;
    MPI_Reduce(&peak_kb, &largest, 1, MPI_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0) std::printf("%d shares: largest peak memory of a rank %ld KB\n", size, largest);
    MPI_Finalize();
    return 0;
  }
  unsigned long long mine[3] = {0, 0, 0}, all[3] = {0, 0, 0}, whole = 0, whole_max = 0;
  if (c.ok()) {
    mine[0] = c->events;
    mine[1] = c->differences;
    whole = c->whole_events;
  } else {
    // The other ranks may be waiting for this one's values: end the job rather than hang it.
    std::fprintf(stderr, "rank %d: %s\n", rank, c.status().message().c_str());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Reduce(mine, all, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(&whole, &whole_max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  int rc = 0;
  if (rank == 0) {
    std::printf("%d shares: %llu of %llu events compared, %llu differences, %llu failed ranks\n", size, all[0],
                whole_max, all[1], all[2]);
    rc = all[1] == 0 && all[2] == 0 && all[0] == whole_max && whole_max > 0 ? 0 : 1;
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
