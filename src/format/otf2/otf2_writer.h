// Writer for OTF2 archives that otf2-print, Vampir and our own ReadOtf2 read.
//
// Every Trace can be written; ReadOtf2 gives back the same locations, regions, event columns,
// messages and collectives (docs/formats/otf2.md lists what OTF2 cannot hold and how it is kept):
//   * times are written in ns (timer resolution 1e9), the origin as the clock's global offset;
//   * messages without a communicator (seed text arcs) go on an invented communicator
//     "grainscope::no_communicator" that the reader drops again;
//   * seed structure names and grains ride along as attributes of the send/receive records, with a
//     key attribute wherever MPI's FIFO matching would pair the records differently;
//   * markers are ParameterString records of the parameter "grainscope::marker";
//   * thread sync events are OTF2's thread records (ThreadFork, ThreadCreate, ThreadAcquireLock,
//     ThreadTaskCreate ...) or markers where OTF2 has none, and thread barriers collectives on
//     their thread team's communicator, one per set of threads (otf2_thread_writer.h);
//   * location kinds and external ids are location properties; region external ids are not kept
//     (a region's OTF2 reference is its index).
#pragma once

#include <string>

#include "base/output_target.h"
#include "base/status.h"
#include "format/exporter.h"
#include "model/trace.h"

namespace grainscope {

// `anchor_path_or_dir`: "dir/name.otf2" writes dir/name.otf2, dir/name.def and dir/name/; any
// other path is a directory that receives traces.otf2, traces.def and traces/. The archive is
// written next to its final place and moved into it when complete (base/output_target.h): an
// existing archive of the same name is replaced only with options.force, and only when it is a
// complete OTF2 archive (anchor, .def, a directory of .def/.evt files and nothing else).
Status WriteOtf2(const Trace& trace, const std::string& anchor_path_or_dir, const OutputOptions& options = {});

// The OTF2 writer in the registry (format/registry.cc): "auto" picks it for *.otf2; an anchor
// "x.otf2" also occupies x.def and x/.
extern const Exporter kOtf2Exporter;

}  // namespace grainscope
