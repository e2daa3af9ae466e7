// First half of reading a .gst file: walk its chunks, check every length against the bytes that
// are there, decompress event blocks and collect the definitions. The second half
// (gst_reader.cc) turns the result into a Trace.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "format/gst/gst_format.h"

namespace grainscope::gst {

struct RegionDefinition {
  uint8_t role = kRoleFunction;
  int64_t external_id = kNoExternalId;
  std::string name;
  std::string file;
  uint32_t line = 0;
};

struct LocationDefinition {
  uint64_t os_thread_id = 0;
  uint32_t thread_index = 0;
  std::string name;
};

struct EventBlock {
  uint32_t sequence = 0;
  uint64_t chunk_offset = 0;   // of the chunk header in the file
  uint32_t header_size = sizeof(ChunkHeader);  // 24 in version 1 files
  uint32_t raw_size = 0;       // payload bytes (records * 16) after decompression
  bool compressed = false;
  // The payload fails its checksum (version 2): `records` is empty and the reader ends the
  // stream before this block; `damage` says what was found.
  bool damaged = false;
  std::string damage;
  std::span<const unsigned char> records;  // into the file, or into `inflated`
  std::vector<unsigned char> inflated;     // decompressed payload, when compressed

  // Position of record `index` for messages: "byte N" in the file, or "record K of the zstd
  // block at byte N" for compressed blocks.
  std::string Where(size_t index) const;
};

struct StreamChunks {
  std::vector<EventBlock> blocks;  // file order; the reader sorts them by sequence
  std::optional<LocationDefinition> location;  // the last definition wins
};

struct Chunks {
  uint16_t version_major = kVersionMajor;
  uint16_t version_minor = 0;
  std::map<uint32_t, RegionDefinition> regions;
  std::map<uint32_t, std::string> strings;
  std::map<uint32_t, StreamChunks> streams;
  std::vector<std::pair<std::string, std::string>> metadata;
  std::vector<ClockSample> clock_samples;  // file order
  std::optional<EndOfTrace> end;
  uint64_t skipped_chunks = 0;   // unknown chunk types
  std::string first_skipped_chunk;
  // Damage survived (version 2 checksums): chunks whose header or payload failed its checksum
  // and were skipped, the bytes skipped to find the next intact chunk header, and what was first.
  uint64_t damaged_chunks = 0;
  uint64_t damaged_bytes = 0;
  std::string first_damaged_chunk;
  // Non-empty when the file ends inside a chunk (cut, or still being written): what was lost.
  std::string truncated;
  // When that chunk is an event block whose header was read: its stream, whose location the
  // note names (its events in that block are lost).
  std::optional<uint32_t> truncated_stream;
};

// `bytes` must outlive the result (blocks point into it). `file` is used in messages only.
Result<Chunks> ParseChunks(std::span<const unsigned char> bytes, std::string_view file);

}  // namespace grainscope::gst
