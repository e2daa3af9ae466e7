// Reader for Charm++ Projections traces (docs/formats/projections.md): a directory holding one
// NAME.sts file and one log per PE, NAME.<pe>.log.gz (or NAME.<pe>.log); the path may also be the
// .sts file itself. Each log is text, one record per line, its kind first; times are
// microseconds since the run began:
//
//    PROJECTIONS-RECORD 985
//    6 77991                                   begin computation: time
//    1 19 183 81619 10 0 160 4                 creation: msg type, entry, time, event, pe, bytes, ...
//    2 4 151 81697 0 0 64 0 0 81629            begin processing: msg type, entry, time, event,
//                                              source pe, bytes, recv time, index..., cpu time
//    3 4 151 81702 0 0 0 81634                 end processing: msg type, entry, time, ...
//
// Mapping onto the Trace model: one location per PE ("PE 3", kind process); an entry method's
// execution (begin/end processing) is a grain region named as Projections names it
// ("Ping1::recv(PingMsg* impl_msg)"), so time outside them is idle as Projections counts it;
// "Idle", "Pack", "Unpack", "Interrupt" (the tracing library flushing its buffer) and
// "Computation" (the whole run on the PE) are regions, a user event pair or bracketed note a
// region of the event's name; a message's creation and each begin of processing that names it
// (its event number and source PE) are a message, one per receiving PE for a broadcast or
// multicast; user events, user-supplied values and notes are markers. Records of kinds that do
// not change time on a PE (enqueue, dequeue, message receipt, memory usage, user statistics) are
// skipped and counted. A record that cannot be read is skipped and counted with its file and
// line; a missing or truncated log is said, the other PEs are read.
#pragma once

#include <string>

#include "base/status.h"
#include "format/importer.h"
#include "model/trace.h"

namespace grainscope {

Result<Trace> ReadProjections(const std::string& path, const ReadOptions& options = {});

// True when `path` is a directory holding a .sts file, or a .sts file starting as they do.
bool LooksLikeProjections(const std::string& path);

extern const Importer kProjectionsImporter;

}  // namespace grainscope
