// Reader for a directory of .gst streams, one per MPI rank, as libgrainscope-mpi writes them
// (docs/recording.md, "MPI tracing"; docs/formats/gst.md, "A directory of ranks"): the ranks'
// files become ONE trace.
//
//   * locations: one per rank ("rank <r>", kind rank, external id r), in rank order, then the
//     rank's other threads ("rank <r> <thread>", grouped with their rank);
//   * regions: merged by name; MPI_* call regions get their role from the call (point-to-point,
//     collective, wait); the per-file "send"/"receive" helper regions are dropped (the MPI call's
//     region is the call);
//   * messages: names "mpi.msg <comm> <sender> <receiver> <tag>" are matched across files in FIFO
//     order per key (MPI's non-overtaking order); rows carry tag, bytes, communicator;
//   * communicators from the "mpi.comm" labels, collective instances from the "mpi.coll"
//     labels, matched per communicator by sequence number (the k-th collective of every member);
//     each file's labels are translated once, as it is read (gst_rank_part.h);
//   * timestamps aligned to rank 0's clock with the "mpi.clock" offsets measured at MPI_Init and
//     MPI_Finalize, interpolated linearly in between.
// The mpi.* markers are consumed; other markers stay markers.
#pragma once

#include <string>

#include "base/status.h"
#include "format/read_options.h"
#include "model/trace.h"

namespace grainscope {

// True when `path` is a directory holding at least one *.gst file.
bool LooksLikeGstDirectory(const std::string& path);

// The rank files are read as independent parts on Threads(options.threads) threads
// (base/parallel.h) and merged once (model/trace_parts.h): the trace is the same whatever the
// number of threads.
Result<Trace> ReadGstDirectory(const std::string& path, const ReadOptions& options = {});

}  // namespace grainscope
