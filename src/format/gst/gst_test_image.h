// Test-only: .gst images built chunk by chunk the way the runtime writes them, for the readers'
// tests (gst_reader_test.cc, gst_mpi_records_test.cc).
#pragma once

#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "format/gst/gst_block_codec.h"
#include "format/gst/gst_format.h"

namespace grainscope::gst_test {

using Bytes = std::vector<unsigned char>;

// Builds .gst images chunk by chunk, the way the runtime writes them.
class GstImage {
 public:
  GstImage() {
    const gst::FileHeader h = gst::CurrentFileHeader();
    Put(&h, sizeof h);
  }

  template <typename T>
  void Put(const T* p, size_t n) {
    Append(bytes_, p, n);
  }

  static void Append(Bytes& to, const void* p, size_t n) {
    const size_t at = to.size();
    to.resize(at + n);
    if (n > 0) std::memcpy(to.data() + at, p, n);
  }

  void Chunk(uint32_t type, const Bytes& payload, uint32_t stream = 0, uint32_t sequence = 0, uint32_t flags = 0,
             uint32_t raw_size = UINT32_MAX) {
    gst::ChunkHeader h{type, flags, static_cast<uint32_t>(payload.size()),
                       raw_size == UINT32_MAX ? static_cast<uint32_t>(payload.size()) : raw_size, stream, sequence};
    gst::SealChunkHeader(h, payload.data());
    last_chunk_ = bytes_.size();
    Put(&h, sizeof h);
    Put(payload.data(), payload.size());
  }

  void Clock(uint32_t kind = gst::kClockMonotonic, uint64_t raw = 1000, int64_t mono = 1000, double rate = 1.0) {
    gst::ClockSample s{kind, 0, raw, mono, rate};
    Chunk(gst::kChunkClock, Of(s));
  }

  void Region(uint32_t id, const std::string& name, uint8_t role = gst::kRoleGrain, int64_t external = gst::kNoExternalId) {
    gst::RegionDef d{};
    d.id = id;
    d.role = role;
    d.external_id = external;
    d.name_size = static_cast<uint32_t>(name.size());
    Bytes p = Of(d);
    Append(p, name.data(), name.size());
    Chunk(gst::kChunkRegionDef, p);
  }

  void String(uint32_t id, const std::string& text) {
    gst::StringDef d{id, static_cast<uint32_t>(text.size())};
    Bytes p = Of(d);
    Append(p, text.data(), text.size());
    Chunk(gst::kChunkStringDef, p);
  }

  // An event block stored as the runtime may store it: `coding` is 0 (raw) or any combination of
  // kChunkDelta and kChunkZstd.
  void Block(uint32_t stream, uint32_t sequence, const std::vector<gst::Record>& records, uint32_t coding = 0) {
    Bytes raw(records.size() * 16);
    if (!records.empty()) std::memcpy(raw.data(), records.data(), raw.size());
    Bytes stored = raw;
    if (coding & gst::kChunkDelta) {
      stored.resize(gst::DeltaBlockBound(records.size()));
      stored.resize(gst::EncodeDeltaBlock(records.data(), records.size(), stored.data()));
    }
    if (coding & gst::kChunkZstd) {
      Bytes packed(ZSTD_compressBound(stored.size()));
      packed.resize(ZSTD_compress(packed.data(), packed.size(), stored.data(), stored.size(), 1));
      stored = std::move(packed);
    }
    Chunk(gst::kChunkEventBlock, stored, stream, sequence, coding, static_cast<uint32_t>(raw.size()));
  }

  void End(uint64_t dropped = 0) {
    gst::EndOfTrace e{dropped, gst::kEndExit, 0, 1, 0};
    Chunk(gst::kChunkEnd, Of(e));
  }

  template <typename T>
  static Bytes Of(const T& v) {
    Bytes b(sizeof v);
    std::memcpy(b.data(), &v, sizeof v);
    return b;
  }

  Bytes& bytes() { return bytes_; }
  size_t last_chunk() const { return last_chunk_; }  // offset of the last chunk's header

 private:
  Bytes bytes_;
  size_t last_chunk_ = 0;
};

inline gst::Record R(uint64_t t, uint8_t kind, uint32_t id, uint8_t extra = 0) { return {t, kind, extra, 0, id}; }
// A continuation slot holding `slot` (any of gst_format.h's 16-byte slots).
template <typename T>
gst::Record SlotOf(const T& slot) {
  static_assert(sizeof(T) == sizeof(gst::Record));
  gst::Record r;
  std::memcpy(&r, &slot, sizeof r);
  return r;
}

// A 2.4 message slot (kRecordSendBegin, kRecordRecvEnd).
inline gst::Record Slot(uint64_t bytes, int32_t peer, uint32_t grain) { return SlotOf(gst::MessageSlot{bytes, peer, grain}); }

}  // namespace grainscope::gst_test
