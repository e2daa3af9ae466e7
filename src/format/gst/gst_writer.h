// Writer for grainscope's native format (.gst, docs/formats/gst.md): any loaded Trace, written so
// that our .gst readers give back the same events (the `convert` and `replay -o` back end).
//
// Version 1.0 of the format has two shapes, and the writer picks the one that can hold the trace:
//   * a single .gst FILE, one stream per location, when the trace has no ranks, communicators or
//     collectives (seed text traces, thread recordings): processors keep their seed processor id
//     (a kind-8 record) and their name (a location definition), messages their seed structure name
//     and grains (the message slot), the origin an origin record;
//   * a DIRECTORY of per-rank files in the form libgrainscope-mpi records ("A directory of ranks"):
//     one file per location group (a rank and its threads), messages named by their matching key
//     (communicator, sender rank, receiver rank, tag), collectives as "mpi.coll" markers,
//     communicators as "mpi.comm" markers.
// Times are written on a CLOCK_MONOTONIC raw clock whose zero is the trace's time 0, so they come
// back to the nanosecond.
//
// What .gst 1.0 cannot hold is left out and counted in the metadata key `gst_omitted_events`:
// the request events of non-blocking calls (kSendComplete, kRecvPost: the send stands at its
// call, the receive at its completion, as libgrainscope-mpi records them) and, in the file shape,
// nothing else. Location names and kinds in the directory shape become "rank <r>"; region
// external ids are renumbered (the readers number regions themselves).
#pragma once

#include <string>

#include "base/output_target.h"
#include "base/status.h"
#include "format/exporter.h"
#include "model/trace.h"

namespace grainscope {

// True when `trace` needs the directory shape (ranks, communicators or collectives).
bool GstNeedsRankDirectory(const Trace& trace);

// Writes `trace` to `path` (a file, or a directory of rank-NNNNN.gst files; see above). The
// output is complete or not there: written next to `path` and moved into place
// (base/output_target.h). An existing .gst trace at `path` (a file with the .gst magic, or a
// directory of rank-NNNNN.gst files and nothing else) is replaced only with options.force;
// anything else there never is.
Status WriteGst(const Trace& trace, const std::string& path, const OutputOptions& options = {});

// The .gst writer in the registry (format/registry.cc): "auto" picks it for *.gst.
extern const Exporter kGstExporter;

}  // namespace grainscope
