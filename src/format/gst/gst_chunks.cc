#include "format/gst/gst_chunks.h"

#include <fmt/format.h>
#include <zstd.h>

#include "format/gst/gst_block_codec.h"

namespace grainscope::gst {
namespace {

std::string_view ChunkTypeName(uint32_t type) {
  switch (type) {
    case kChunkMetadata: return "metadata";
    case kChunkClock: return "clock";
    case kChunkRegionDef: return "region definition";
    case kChunkStringDef: return "string definition";
    case kChunkLocationDef: return "location definition";
    case kChunkEventBlock: return "event block";
    case kChunkEnd: return "end of trace";
    default: return "unknown";
  }
}

class ChunkParser {
 public:
  ChunkParser(std::span<const unsigned char> bytes, std::string_view file) : bytes_(bytes), file_(file) {}

  Result<Chunks> Run() {
    GS_RETURN_IF_ERROR(ParseHeader());
    uint64_t offset = header_size_;
    while (offset < bytes_.size()) {
      GS_ASSIGN_OR_RETURN(offset, ParseChunk(offset));
    }
    return std::move(out_);
  }

 private:
  template <typename... Args>
  Status ErrorAt(uint64_t offset, fmt::format_string<Args...> f, Args&&... args) {
    return DataLoss(fmt::format("{}: byte {}: {}", file_, offset, fmt::format(f, std::forward<Args>(args)...)));
  }

  // A size or count beyond its documented maximum (format/limits.h).
  Status LimitError(uint64_t offset, std::string_view what, uint64_t value, std::string_view limit_name, uint64_t limit) {
    return ErrorAt(offset, "{} {} exceeds the limit {} = {} (docs/formats/gst.md, \"Limits\")", what, value, limit_name,
                   limit);
  }

  bool v1() const { return out_.version_major == 1; }

  Status ParseHeader() {
    if (bytes_.size() < sizeof(FileHeader)) {
      if (bytes_.size() >= 4 && std::memcmp(bytes_.data(), kMagic, 4) != 0)
        return DataLoss(fmt::format("{}: not a .gst trace (no .gst magic number at byte 0)", file_));
      return ErrorAt(bytes_.size(), "file ends inside the {}-byte .gst header (the file is {} bytes long)",
                     sizeof(FileHeader), bytes_.size());
    }
    const auto h = Load<FileHeader>(bytes_.data());
    if (std::memcmp(h.magic, kMagic, sizeof kMagic) != 0)
      return DataLoss(fmt::format("{}: not a .gst trace (no .gst magic number at byte 0)", file_));
    if (h.version_major < kOldestReadableMajor || h.version_major > kVersionMajor) {
      return ErrorAt(8, "format version {}.{} is not supported (this reader reads versions {}.x to {}.x)",
                     h.version_major, h.version_minor, kOldestReadableMajor, kVersionMajor);
    }
    if (h.record_size != sizeof(Record))
      return ErrorAt(16, "record size is {}, expected {}", h.record_size, sizeof(Record));
    if (h.header_size < sizeof(FileHeader) || h.header_size > bytes_.size()) {
      return ErrorAt(12, "header size {} is impossible (at least {}, at most the file's {} bytes)",
                     h.header_size, sizeof(FileHeader), bytes_.size());
    }
    header_size_ = h.header_size;
    out_.version_major = h.version_major;
    out_.version_minor = h.version_minor;
    chunk_header_size_ = v1() ? kChunkHeaderSizeV1 : sizeof(ChunkHeader);
    return OkStatus();
  }

  ChunkHeader LoadChunkHeader(uint64_t offset) const {
    ChunkHeader h{};
    std::memcpy(&h, bytes_.data() + offset, chunk_header_size_);
    return h;
  }

  // Version 2: whether a whole chunk header at `offset` passes its checksum.
  bool IntactHeaderAt(uint64_t offset) const {
    if (bytes_.size() - offset < sizeof(ChunkHeader)) return false;
    const auto h = Load<ChunkHeader>(bytes_.data() + offset);
    return h.header_crc == Crc32c(bytes_.data() + offset, kChunkHeaderCrcOffset);
  }

  void NoteDamage(uint64_t bytes, std::string what) {
    if (out_.damaged_chunks++ == 0) out_.first_damaged_chunk = std::move(what);
    out_.damaged_bytes += bytes;
  }

  // Version 2, after a chunk header that fails its checksum at `offset`: its sizes cannot be
  // trusted, so the next chunk is found by its own intact header. Returns where reading resumes.
  uint64_t Resynchronise(uint64_t offset, bool zero_filled) {
    uint64_t next = offset + 1;
    while (next < bytes_.size() && !IntactHeaderAt(next)) ++next;
    if (bytes_.size() - next < sizeof(ChunkHeader)) next = bytes_.size();
    NoteDamage(next - offset,
               fmt::format("{}: byte {}: {}; {} bytes skipped to {}", file_, offset,
                           zero_filled ? "zero-filled chunk header (a write the recording process never finished)"
                                       : "chunk header fails its checksum (the file is damaged)",
                           next - offset,
                           next < bytes_.size() ? fmt::format("the next intact chunk at byte {}", next)
                                                : std::string("the end of the file")));
    return next;
  }

  // The file ends inside the chunk at `offset`: what is there is a valid prefix; say what was cut
  // (and, for an event block, whose: `stream`).
  uint64_t NoteTruncated(uint64_t offset, std::string what, std::optional<uint32_t> stream = std::nullopt) {
    out_.truncated_stream = stream;
    out_.truncated = fmt::format("{}: byte {}: the file ends inside {} (the file was cut, or is still being "
                                 "written); that chunk is ignored", file_, offset, what);
    return bytes_.size();
  }

  // The same for a chunk whose header is whole and payload cut: an event block's stream is known.
  uint64_t NoteTruncatedPayload(uint64_t offset, const ChunkHeader& h, uint64_t remaining) {
    return NoteTruncated(offset,
                         fmt::format("this {} chunk: it needs {} payload bytes, only {} remain", ChunkTypeName(h.type),
                                     h.stored_size, remaining - chunk_header_size_),
                         h.type == kChunkEventBlock ? std::optional(h.stream) : std::nullopt);
  }

  // Parses the chunk at `offset`; returns the offset of the next one.
  Result<uint64_t> ParseChunk(uint64_t offset) {
    const uint64_t remaining = bytes_.size() - offset;
    if (remaining < chunk_header_size_) {
      return NoteTruncated(offset, fmt::format("a chunk header ({} of its {} bytes are there)", remaining,
                                               chunk_header_size_));
    }
    const ChunkHeader h = LoadChunkHeader(offset);
    const bool zero_filled = h.type == 0 && h.stored_size == 0 && h.raw_size == 0;
    if (!v1() && h.header_crc != Crc32c(bytes_.data() + offset, kChunkHeaderCrcOffset))
      return Resynchronise(offset, zero_filled);
    if (zero_filled) {
      return ErrorAt(offset, "zero-filled chunk header: a write the recording process never finished "
                             "(it was killed while writing the trace)");
    }
    const uint64_t payload_offset = offset + chunk_header_size_;
    if (h.stored_size > limits::kMaxChunkBytes)
      return LimitError(offset, "chunk payload of", h.stored_size, "kMaxChunkBytes", limits::kMaxChunkBytes);
    if (h.stored_size > remaining - chunk_header_size_) return NoteTruncatedPayload(offset, h, remaining);
    std::span<const unsigned char> payload = bytes_.subspan(payload_offset, h.stored_size);
    const uint64_t next = payload_offset + h.stored_size;
    if ((h.flags & kChunkCoded) == 0 && h.raw_size != h.stored_size) {
      return ErrorAt(offset, "{} chunk is not compressed but its raw size {} differs from its stored size {}",
                     ChunkTypeName(h.type), h.raw_size, h.stored_size);
    }
    if (!v1() && h.payload_crc != Crc32c(payload.data(), payload.size())) {
      GS_RETURN_IF_ERROR(DamagedPayload(offset, h));
      return next;
    }
    switch (h.type) {
      case kChunkEventBlock: GS_RETURN_IF_ERROR(ParseEventBlock(offset, h, payload)); break;
      case kChunkRegionDef: GS_RETURN_IF_ERROR(ParseRegion(offset, h, payload)); break;
      case kChunkStringDef: GS_RETURN_IF_ERROR(ParseString(offset, h, payload)); break;
      case kChunkLocationDef: GS_RETURN_IF_ERROR(ParseLocation(offset, h, payload)); break;
      case kChunkMetadata: GS_RETURN_IF_ERROR(ParseMetadata(offset, h, payload)); break;
      case kChunkClock: {
        GS_RETURN_IF_ERROR(ExpectUncompressedSize(offset, h, sizeof(ClockSample)));
        const auto sample = Load<ClockSample>(payload.data());
        if (sample.clock != kClockMonotonic && sample.clock != kClockTsc)
          return ErrorAt(payload_offset, "clock kind {} is unknown (0 monotonic, 1 tsc)", sample.clock);
        if (out_.clock_samples.size() >= limits::kMaxClockSamples)
          return LimitError(offset, "clock sample number", out_.clock_samples.size() + 1, "kMaxClockSamples", limits::kMaxClockSamples);
        out_.clock_samples.push_back(sample);
        break;
      }
      case kChunkEnd:
        GS_RETURN_IF_ERROR(ExpectUncompressedSize(offset, h, sizeof(EndOfTrace)));
        out_.end = Load<EndOfTrace>(payload.data());
        break;
      default:
        if (out_.skipped_chunks++ == 0) {
          out_.first_skipped_chunk =
              fmt::format("{}: byte {}: chunk of unknown type {} ({} bytes) skipped", file_, offset, h.type, h.stored_size);
        }
        break;
    }
    return next;
  }

  // A version 2 chunk whose header is intact but whose payload fails its checksum. Definitions
  // every later event may depend on are fatal; an event block ends its stream (the reader keeps
  // the blocks before it); the rest (metadata, clock samples, thread names, the end) is skipped.
  Status DamagedPayload(uint64_t offset, const ChunkHeader& h) {
    const std::string what = fmt::format("{} chunk payload fails its checksum (stored {:08x}, computed {:08x})",
                                         ChunkTypeName(h.type), h.payload_crc,
                                         Crc32c(bytes_.data() + offset + chunk_header_size_, h.stored_size));
    if (h.type == kChunkRegionDef || h.type == kChunkStringDef)
      return ErrorAt(offset, "{}: the file is damaged and its events cannot be named", what);
    if (h.type == kChunkEventBlock) {
      GS_RETURN_IF_ERROR(CheckStreamLimits(offset, h.stream));
      EventBlock block = BlockAt(offset, h);
      block.damaged = true;
      block.damage = fmt::format("byte {}: {}", offset, what);
      out_.streams[h.stream].blocks.push_back(std::move(block));
      return OkStatus();
    }
    NoteDamage(0, fmt::format("{}: byte {}: {}; the chunk is skipped", file_, offset, what));
    return OkStatus();
  }

  // Where an event block's chunk lies; its payload is located and checked by the caller.
  EventBlock BlockAt(uint64_t offset, const ChunkHeader& h) const {
    EventBlock block;
    block.sequence = h.sequence;
    block.chunk_offset = offset;
    block.header_size = chunk_header_size_;
    block.raw_size = h.raw_size;
    return block;
  }

  Status CheckStreamLimits(uint64_t offset, uint32_t stream) {
    auto it = out_.streams.find(stream);
    if (it == out_.streams.end()) {
      if (out_.streams.size() >= limits::kMaxStreams)
        return LimitError(offset, "stream count", out_.streams.size() + 1, "kMaxStreams", limits::kMaxStreams);
    } else if (it->second.blocks.size() >= limits::kMaxBlocksPerStream) {
      return LimitError(offset, fmt::format("event blocks of stream {}:", stream), it->second.blocks.size() + 1,
                        "kMaxBlocksPerStream", limits::kMaxBlocksPerStream);
    }
    return OkStatus();
  }

  Status ExpectUncompressedSize(uint64_t offset, const ChunkHeader& h, size_t at_least) {
    if (h.flags & kChunkCoded) return ErrorAt(offset, "{} chunk is compressed; only event blocks may be", ChunkTypeName(h.type));
    if (h.stored_size < at_least) {
      return ErrorAt(offset, "{} chunk has {} payload bytes, expected at least {}", ChunkTypeName(h.type),
                     h.stored_size, at_least);
    }
    return OkStatus();
  }

  Status ParseEventBlock(uint64_t offset, const ChunkHeader& h, std::span<const unsigned char> payload) {
    if (h.raw_size % sizeof(Record) != 0) {
      return ErrorAt(offset, "event block of {} bytes is not a whole number of {}-byte records", h.raw_size,
                     sizeof(Record));
    }
    if (h.raw_size > limits::kMaxChunkBytes)
      return LimitError(offset, "event block size", h.raw_size, "kMaxChunkBytes", limits::kMaxChunkBytes);
    GS_RETURN_IF_ERROR(CheckStreamLimits(offset, h.stream));
    EventBlock block = BlockAt(offset, h);
    if (h.flags & kChunkCoded) {
      block.compressed = true;
      std::span<const unsigned char> coded = payload;
      std::vector<unsigned char> unzstd;
      if (h.flags & kChunkZstd) {
        // A zstd frame of the records, or of their delta coding (at most DeltaBlockBound bytes).
        const size_t limit = (h.flags & kChunkDelta) ? DeltaBlockBound(h.raw_size / sizeof(Record)) : h.raw_size;
        GS_ASSIGN_OR_RETURN(unzstd, Unzstd(offset, payload, limit, (h.flags & kChunkDelta) == 0));
        coded = unzstd;
      }
      if (h.flags & kChunkDelta) {
        block.inflated.resize(h.raw_size);
        const std::string problem = DecodeDeltaBlock(coded, block.inflated.data(), h.raw_size / sizeof(Record));
        if (!problem.empty()) return ErrorAt(offset + chunk_header_size_, "corrupt delta-coded event block: {}", problem);
      } else {
        block.inflated = std::move(unzstd);
      }
      block.records = block.inflated;
    } else {
      block.records = payload;
    }
    out_.streams[h.stream].blocks.push_back(std::move(block));
    return OkStatus();
  }

  // The content of the zstd frame `payload` of the event block at `offset`: exactly `limit` bytes
  // when `exact`, else at most `limit`.
  Result<std::vector<unsigned char>> Unzstd(uint64_t offset, std::span<const unsigned char> payload, size_t limit,
                                            bool exact) {
    const unsigned long long content = ZSTD_getFrameContentSize(payload.data(), payload.size());
    const bool bad = content == ZSTD_CONTENTSIZE_UNKNOWN || content == ZSTD_CONTENTSIZE_ERROR ||
                     (exact ? content != limit : content > limit);
    if (bad) {
      return ErrorAt(offset + chunk_header_size_,
                     "zstd frame of an event block: expected {}{} decompressed bytes, the frame says {}",
                     exact ? "" : "at most ", limit,
                     content == ZSTD_CONTENTSIZE_UNKNOWN   ? std::string("unknown")
                     : content == ZSTD_CONTENTSIZE_ERROR ? std::string("it is not a zstd frame")
                                                         : std::to_string(content));
    }
    std::vector<unsigned char> out(content);
    const size_t n = ZSTD_decompress(out.data(), out.size(), payload.data(), payload.size());
    if (ZSTD_isError(n) || n != content) {
      return ErrorAt(offset + chunk_header_size_, "corrupt zstd frame in an event block: {}",
                     ZSTD_isError(n) ? ZSTD_getErrorName(n) : "short output");
    }
    return out;
  }

  // Reads `size` bytes of text at `at` within `payload`, or fails naming the definition.
  Result<std::string> Text(uint64_t payload_offset, std::span<const unsigned char> payload, size_t at, uint32_t size,
                           std::string_view what) {
    if (size > limits::kMaxStringBytes)
      return LimitError(payload_offset + at, fmt::format("{} size", what), size, "kMaxStringBytes", limits::kMaxStringBytes);
    if (at > payload.size() || size > payload.size() - at) {
      return ErrorAt(payload_offset + at, "{} of {} bytes runs past the end of its chunk ({} bytes left)", what,
                     size, payload.size() - std::min(at, payload.size()));
    }
    return std::string(reinterpret_cast<const char*>(payload.data() + at), size);
  }

  Status ParseRegion(uint64_t offset, const ChunkHeader& h, std::span<const unsigned char> payload) {
    GS_RETURN_IF_ERROR(ExpectUncompressedSize(offset, h, sizeof(RegionDef)));
    const uint64_t at = offset + chunk_header_size_;
    const auto def = Load<RegionDef>(payload.data());
    if (def.id == 0) return ErrorAt(at, "region definition with id 0 (ids start at 1)");
    RegionDefinition r;
    r.role = def.role;
    r.external_id = def.external_id;
    r.line = def.line;
    GS_ASSIGN_OR_RETURN(r.name, Text(at, payload, sizeof def, def.name_size, "region name"));
    GS_ASSIGN_OR_RETURN(r.file, Text(at, payload, sizeof def + def.name_size, def.file_size, "region file name"));
    if (out_.regions.size() >= limits::kMaxDefinitions && !out_.regions.count(def.id))
      return LimitError(at, "region definition count", out_.regions.size() + 1, "kMaxDefinitions", limits::kMaxDefinitions);
    auto [it, inserted] = out_.regions.emplace(def.id, r);
    if (!inserted && (it->second.name != r.name || it->second.role != r.role || it->second.external_id != r.external_id))
      return ErrorAt(at, "region {} is defined twice, as '{}' and as '{}'", def.id, it->second.name, r.name);
    return OkStatus();
  }

  Status ParseString(uint64_t offset, const ChunkHeader& h, std::span<const unsigned char> payload) {
    GS_RETURN_IF_ERROR(ExpectUncompressedSize(offset, h, sizeof(StringDef)));
    const uint64_t at = offset + chunk_header_size_;
    const auto def = Load<StringDef>(payload.data());
    if (def.id == 0) return ErrorAt(at, "string definition with id 0 (ids start at 1)");
    GS_ASSIGN_OR_RETURN(std::string text, Text(at, payload, sizeof def, def.size, "string"));
    if (out_.strings.size() >= limits::kMaxDefinitions && !out_.strings.count(def.id))
      return LimitError(at, "string definition count", out_.strings.size() + 1, "kMaxDefinitions", limits::kMaxDefinitions);
    auto [it, inserted] = out_.strings.emplace(def.id, text);
    if (!inserted && it->second != text)
      return ErrorAt(at, "string {} is defined twice, as '{}' and as '{}'", def.id, it->second, text);
    return OkStatus();
  }

  Status ParseLocation(uint64_t offset, const ChunkHeader& h, std::span<const unsigned char> payload) {
    GS_RETURN_IF_ERROR(ExpectUncompressedSize(offset, h, sizeof(LocationDef)));
    const uint64_t at = offset + chunk_header_size_;
    const auto def = Load<LocationDef>(payload.data());
    LocationDefinition loc;
    loc.os_thread_id = def.os_thread_id;
    loc.thread_index = def.thread_index;
    GS_ASSIGN_OR_RETURN(loc.name, Text(at, payload, sizeof def, def.name_size, "thread name"));
    if (!out_.streams.count(h.stream)) GS_RETURN_IF_ERROR(CheckStreamLimits(offset, h.stream));
    out_.streams[h.stream].location = std::move(loc);
    return OkStatus();
  }

  // (u32 size, bytes) pairs: key, value, key, value, ...
  Status ParseMetadata(uint64_t offset, const ChunkHeader& h, std::span<const unsigned char> payload) {
    GS_RETURN_IF_ERROR(ExpectUncompressedSize(offset, h, 0));
    const uint64_t at = offset + chunk_header_size_;
    size_t pos = 0;
    while (pos < payload.size()) {
      std::string kv[2];
      for (std::string& s : kv) {
        if (payload.size() - pos < 4) {
          return ErrorAt(at + pos, "metadata entry: a 4-byte length was expected, only {} bytes remain in the chunk",
                         payload.size() - pos);
        }
        const auto size = Load<uint32_t>(payload.data() + pos);
        GS_ASSIGN_OR_RETURN(s, Text(at, payload, pos + 4, size, &s == &kv[0] ? "metadata key" : "metadata value"));
        pos += 4 + size;
      }
      if (out_.metadata.size() >= limits::kMaxMetadataEntries)
        return LimitError(at + pos, "metadata entry count", out_.metadata.size() + 1, "kMaxMetadataEntries", limits::kMaxMetadataEntries);
      out_.metadata.emplace_back(std::move(kv[0]), std::move(kv[1]));
    }
    return OkStatus();
  }

  std::span<const unsigned char> bytes_;
  std::string_view file_;
  uint64_t header_size_ = 0;
  uint32_t chunk_header_size_ = sizeof(ChunkHeader);
  Chunks out_;
};

}  // namespace

std::string EventBlock::Where(size_t index) const {
  if (compressed) return fmt::format("record {} of the zstd event block at byte {}", index, chunk_offset);
  return fmt::format("byte {}", chunk_offset + header_size + index * sizeof(Record));
}

Result<Chunks> ParseChunks(std::span<const unsigned char> bytes, std::string_view file) {
  return ChunkParser(bytes, file).Run();
}

}  // namespace grainscope::gst
