// The largest value every size and count field of a trace file may have. Readers check each one
// on read and fail with an error that names the limit (LimitError below), so a damaged or hostile
// file cannot make them allocate without bound, loop for hours or overflow a counter. Each limit
// is far above what the recording runtime or a real program writes; docs/formats/*.md list them.
// Dependency-free: the recording runtime includes it through gst_format.h.
#pragma once

#include <cstdint>

namespace grainscope::limits {

// ---- .gst (docs/formats/gst.md, "Limits") ---------------------------------------------------
// A chunk's payload, stored or decompressed: 64 MiB (the runtime writes 64 KiB blocks).
inline constexpr uint32_t kMaxChunkBytes = 64u << 20;
// Records (16-byte slots) in one event block: kMaxChunkBytes / 16.
inline constexpr uint32_t kMaxRecordsPerBlock = kMaxChunkBytes / 16;
// Streams (recording threads, locations) in one file; the runtime stops at 16384.
inline constexpr uint32_t kMaxStreams = 1u << 20;
// Event blocks of one stream (2^24 blocks of 64 KiB = 1 TiB of events).
inline constexpr uint32_t kMaxBlocksPerStream = 1u << 24;
// Region and string definitions (ids): the runtime's tables hold 65536 and 49152.
inline constexpr uint32_t kMaxDefinitions = 1u << 24;
// One name, file name, string, thread name, metadata key or value.
inline constexpr uint32_t kMaxStringBytes = 1u << 20;
// Metadata entries in one file, clock samples in one file.
inline constexpr uint32_t kMaxMetadataEntries = 1u << 16;
inline constexpr uint32_t kMaxClockSamples = 1u << 24;
// Times: CLOCK_MONOTONIC readings of clock samples, and event times in ns from the start of
// recording (+-2^62 ns, 146 years), so differences of times never overflow.
inline constexpr int64_t kMaxTimeNs = int64_t{1} << 62;
// Rank files in one MPI trace directory.
inline constexpr uint32_t kMaxRankFiles = 1u << 20;

// ---- task graphs (docs/schedule.md) ---------------------------------------------------------
// Tasks the first line of an STG file may declare (the reader allocates per task).
inline constexpr int64_t kMaxStgTasks = 10'000'000;

// Text formats (seed text, Chrome JSON, DOT, the seed's Task_Graph, JSON task graphs) have no
// size fields: what they hold is bounded by the file itself.

}  // namespace grainscope::limits
