// The delta coding of .gst event blocks (docs/formats/gst.md, "Delta-coded event blocks").
//
// A 64 KiB block of 16-byte records shrinks to about 4 bytes per event at about 2 ns per event,
// a tenth of what zstd level 1 costs on the same block, so the recording runtime's flusher can
// afford it even when it has no processor of its own; zstd may then run on the coded block when
// the flusher keeps up. Per record: one 32-bit word with the time difference to the previous
// record (24 bits) and the slot of the record's other 8 bytes (kind, extra, id) in a 16-entry
// cache of recent values; the difference and those 8 bytes in full only when they do not fit;
// then the record's continuation slots verbatim.
//
// Used by the runtime (src/record, encoding) and the reader (decoding): no dependencies beyond
// the standard library, no allocation.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace grainscope::gst {

// Bytes EncodeDeltaBlock may write for `slots` records: the caller's output buffer size.
constexpr size_t DeltaBlockBound(size_t slots) { return slots * 20; }

// Encodes `slots` 16-byte records (a block as recorded: records followed by their continuation
// slots) into `out` (DeltaBlockBound(slots) bytes). Returns the encoded size.
size_t EncodeDeltaBlock(const void* records, size_t slots, unsigned char* out);

// Decodes `in` into exactly `slots` records at `out`. Returns an empty string, or what is wrong
// with the input and at which byte of it ("record 12 at byte 30: ...").
std::string DecodeDeltaBlock(std::span<const unsigned char> in, void* out, size_t slots);

}  // namespace grainscope::gst
