#include "format/gst/gst_block_codec.h"

#include <algorithm>
#include <cstring>

namespace grainscope::gst {
namespace {

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "the coding copies little-endian integers as they are");

constexpr size_t kSlotBytes = 16;

// Every record starts with a 32-bit little-endian word: bits 0-3 the key's cache slot, bit 4
// "the key follows" (8 bytes, placed in the cache), bit 5 "the time difference follows" (8 bytes;
// it does not fit the 24 bits of the word), bits 6-7 zero, bits 8-31 the time difference. A
// fixed-size word keeps the encoder's output position independent of the data: no chain of
// dependent length computations from one record to the next.
constexpr uint32_t kLiteralKey = 1u << 4;
constexpr uint32_t kLongDelta = 1u << 5;
constexpr uint32_t kReservedBits = 3u << 6;
constexpr uint64_t kShortDeltaLimit = uint64_t{1} << 24;

// The 16 most recently placed keys (a record's second half: kind, extra, reserved, id): a new key
// replaces the oldest (FIFO), so encoder and decoder agree on where it goes and only the slot
// travels. A trace's hot regions are a handful of keys; a direct-mapped cache of 16 would
// already collide for 8 keys half the time.
struct KeyCache {
  uint64_t key[16] = {};
  unsigned filled = 0;  // bit k: key[k] holds a key
  unsigned next = 0;    // the slot the next new key goes to

  unsigned Place(uint64_t k) {
    const unsigned slot = next;
    key[slot] = k;
    filled |= 1u << slot;
    next = (next + 1) & 15;
    return slot;
  }
};

// The encoder's way to find a key among the 16: a 256-entry table from a hash of the key to the
// slot it was last placed in. A hash collision only costs a literal (the key is placed again);
// the decoder never needs the table.
struct KeyFinder {
  uint8_t slot_of[256] = {};

  static unsigned Hash(uint64_t key) { return static_cast<unsigned>(((key ^ (key >> 29)) * 0x9E3779B97F4A7C15ull) >> 56); }
  // The slot holding `key`, or 16.
  unsigned Find(const KeyCache& cache, uint64_t key) const {
    const unsigned slot = slot_of[Hash(key)];
    return (cache.filled & (1u << slot)) != 0 && cache.key[slot] == key ? slot : 16;
  }
  void Note(uint64_t key, unsigned slot) { slot_of[Hash(key)] = static_cast<uint8_t>(slot); }
};

// Continuation slots of the record whose key is `key`, as many as the block still holds.
size_t ExtraSlots(uint64_t key, size_t remaining) { return std::min<size_t>((key >> 8) & 0xff, remaining); }

std::string Problem(size_t record, size_t byte, const std::string& what) {
  return "record " + std::to_string(record) + " at byte " + std::to_string(byte) + ": " + what;
}

}  // namespace

size_t EncodeDeltaBlock(const void* records, size_t slots, unsigned char* out) {
  const auto* in = static_cast<const unsigned char*>(records);
  KeyCache cache;
  KeyFinder finder;
  uint64_t previous = 0;
  unsigned char* o = out;
  size_t i = 0;
  while (i < slots) {
    uint64_t time, key;
    std::memcpy(&time, in + i * kSlotBytes, 8);
    std::memcpy(&key, in + i * kSlotBytes + 8, 8);
    const uint64_t delta = time - previous;  // wraps for a clock going backwards: long, exact
    previous = time;
    unsigned slot = finder.Find(cache, key);
    if (slot < 16 && delta < kShortDeltaLimit) {  // the usual record: one word
      const uint32_t word = slot | static_cast<uint32_t>(delta << 8);
      std::memcpy(o, &word, 4);
      o += 4;
    } else {
      const bool literal = slot == 16, long_delta = delta >= kShortDeltaLimit;
      if (literal) {
        slot = cache.Place(key);
        finder.Note(key, slot);
      }
      const uint32_t word = slot | (literal ? kLiteralKey : 0) | (long_delta ? kLongDelta : static_cast<uint32_t>(delta << 8));
      std::memcpy(o, &word, 4);
      o += 4;
      if (long_delta) {
        std::memcpy(o, &delta, 8);
        o += 8;
      }
      if (literal) {
        std::memcpy(o, &key, 8);
        o += 8;
      }
    }
    ++i;
    const size_t extra = ExtraSlots(key, slots - i);
    if (extra != 0) {  // message records only: no library call for every record
      std::memcpy(o, in + i * kSlotBytes, extra * kSlotBytes);
      o += extra * kSlotBytes;
      i += extra;
    }
  }
  return static_cast<size_t>(o - out);
}

std::string DecodeDeltaBlock(std::span<const unsigned char> in, void* out, size_t slots) {
  auto* o = static_cast<unsigned char*>(out);
  KeyCache cache;
  uint64_t time = 0;
  size_t p = 0, i = 0;
  while (i < slots) {
    if (in.size() - p < 4) {
      return Problem(i, p, "the coded block ends " + std::to_string(slots - i) + " slots short");
    }
    uint32_t word;
    std::memcpy(&word, in.data() + p, 4);
    if (word & kReservedBits) return Problem(i, p, "reserved bits 6-7 of the record word are set");
    const unsigned slot = word & 15;
    const bool literal = (word & kLiteralKey) != 0, long_delta = (word & kLongDelta) != 0;
    const size_t need = 4 + (long_delta ? 8 : 0) + (literal ? 8 : 0);
    if (in.size() - p < need) {
      return Problem(i, p, "needs " + std::to_string(need) + " bytes, " + std::to_string(in.size() - p) + " remain");
    }
    uint64_t delta = word >> 8;
    if (long_delta) {
      if (delta != 0) return Problem(i, p, "a long time difference with a short one in the word as well");
      std::memcpy(&delta, in.data() + p + 4, 8);
    }
    uint64_t key = cache.key[slot];
    if (literal) {
      if (slot != cache.next) {
        return Problem(i, p, "a new key placed in cache slot " + std::to_string(slot) + ", expected slot " +
                                 std::to_string(cache.next));
      }
      std::memcpy(&key, in.data() + p + need - 8, 8);
      cache.Place(key);
    } else if ((cache.filled & (1u << slot)) == 0) {
      return Problem(i, p, "refers to cache slot " + std::to_string(slot) + " before any key was placed there");
    }
    p += need;
    time += delta;
    std::memcpy(o + i * kSlotBytes, &time, 8);
    std::memcpy(o + i * kSlotBytes + 8, &key, 8);
    ++i;
    const size_t extra = ExtraSlots(key, slots - i);
    if (extra != 0) {
      if (in.size() - p < extra * kSlotBytes) {
        return Problem(i - 1, p, "its " + std::to_string(extra) + " continuation slots need " +
                                     std::to_string(extra * kSlotBytes) + " bytes, " + std::to_string(in.size() - p) +
                                     " remain");
      }
      std::memcpy(o + i * kSlotBytes, in.data() + p, extra * kSlotBytes);
      p += extra * kSlotBytes;
      i += extra;
    }
  }
  if (p != in.size()) return Problem(i, p, std::to_string(in.size() - p) + " bytes left after the last record");
  return {};
}

}  // namespace grainscope::gst
