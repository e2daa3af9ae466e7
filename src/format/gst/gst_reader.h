// Reader for grainscope's native trace format (.gst, docs/formats/gst.md), written by the
// recording runtime (src/record). The file is memory-mapped; event blocks compressed with zstd
// are inflated one at a time.
//
// Mapping onto the Trace model, as for the seed's text format (format/seedtext):
//   * one location per stream (recording thread): "processor <id>" with the seed processor id as
//     external id when the thread recorded one that no other thread used, else "thread <n>" (or
//     the name the program gave it);
//   * one region per region definition (grains keep their grain id as external id); a grain
//     whose id the program gave per execution (gs_grain_begin_id) is an instance of its site's
//     region with that id (Trace::InstanceId);
//   * a send is a "send" region (kPointToPoint) from send begin to send end with the kSend event at
//     its begin; a receive a "receive" region with the kRecv event just before its leave;
//   * messages are paired by name in FIFO order: the k-th send of a name to complete (send end)
//     with the k-th receive of that name to complete (receive end); ties by stream, then position;
//   * the seed's initialize_clock() (an origin record) sets the trace's origin, else the
//     program's first event does;
//   * times are ns since the first clock sample (the start of recording).
// Metadata keys: everything the runtime wrote (program, host, clock, overhead_per_event_ns, ...)
// plus dropped_events and end ("exit", "signal <n>" or "missing").
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "format/format_names.h"
#include "format/importer.h"
#include "model/trace.h"

namespace grainscope {

// Maps `path` and reads it. `derive_thread_sync` false: the threads' sync events stay as recorded,
// without the edges and barrier instances Finish derives from them (the directory reader merges
// rank files first and derives them once, model/thread_sync.h).
Result<Trace> ReadGstFile(const std::string& path, bool derive_thread_sync = true);

// Reads a .gst image held in memory; `file_name` is only used in messages.
Result<Trace> ReadGst(std::span<const unsigned char> bytes, std::string_view file_name,
                      bool derive_thread_sync = true);

// True when `head` (the first bytes of a file) starts with the .gst magic number.
bool LooksLikeGst(std::string_view head);

// The .gst reader in the registry (format/registry.cc): a reader of paths, sure of a directory of
// rank files (gst_dir_reader.h), of a *.gst name and of the magic number; a pipe holding one is
// refused (the reader maps a file).
extern const Importer kGstImporter;

}  // namespace grainscope
