// The interned labels of messages and collectives, cached per thread: formatting and interning a
// label is most of a wrapper's cost.
#include <mpi.h>

#include <cstdint>
#include <cstdio>

#include "mpi/mpi_state.h"

namespace grainscope::mpi {
namespace {

// The last names interned per key, per thread: formatting and hashing the text (~300 ns) is
// most of a wrapper's cost, and programs repeat the same few keys (neighbours, tags, roots).
struct NameCacheEntry {
  uint64_t key[4] = {~0ull, ~0ull, ~0ull, 0};
  uint32_t id = 0;
};
constexpr size_t kNameCacheSize = 256;
thread_local NameCacheEntry t_name_cache[kNameCacheSize];

NameCacheEntry& CacheSlot(uint64_t a, uint64_t b, uint64_t c) {
  const uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b * 0xC2B2AE3D27D4EB4Full) ^ (c * 0x165667B19E3779F9ull);
  return t_name_cache[(h >> 40) % kNameCacheSize];
}

}  // namespace

uint32_t MessageName(const CommInfo& comm, int sender_world, int receiver_world, int tag) {
  const uint64_t a = (uint64_t{comm.index} << 1) | 1, b = (uint64_t{static_cast<uint32_t>(sender_world)} << 32) | static_cast<uint32_t>(receiver_world);
  const uint64_t c = static_cast<uint32_t>(tag);
  NameCacheEntry& slot = CacheSlot(a, b, c);
  if (slot.id != 0 && slot.key[0] == a && slot.key[1] == b && slot.key[2] == c) return slot.id;
  char name[96];
  std::snprintf(name, sizeof name, "mpi.msg %s %d %d %d", comm.id, sender_world, receiver_world, tag);
  const uint32_t id = gs_intern(name);
  slot = NameCacheEntry{{a, b, c}, id};
  return id;
}

// The interned begin label of a collective: "mpi.coll ..." (slot 0: blocking) or "mpi.icoll ...
// <slot>". Cached like message names; the key is exact: the op's static text (its address), the
// byte counts, and communicator and root together (slots above 255 are not cached).
uint32_t CollectiveLabel(const char* op, const CommInfo& info, int root_world, uint64_t sent, uint64_t received,
                         uint32_t slot) {
  const uint64_t a = (static_cast<uint64_t>(reinterpret_cast<uintptr_t>(op)) << 1) | (uint64_t{slot} << 56);
  const uint64_t d = (uint64_t{info.index} << 32) | static_cast<uint32_t>(root_world);
  const bool cached = slot < 256;
  NameCacheEntry& entry = CacheSlot(a ^ d, sent, received);
  if (cached && entry.id != 0 && entry.key[0] == a && entry.key[1] == sent && entry.key[2] == received &&
      entry.key[3] == d) {
    return entry.id;
  }
  char label[176];
  if (slot == 0) {
    std::snprintf(label, sizeof label, "mpi.coll %s %s %d %llu %llu", op, info.id, root_world,
                  static_cast<unsigned long long>(sent), static_cast<unsigned long long>(received));
  } else {
    std::snprintf(label, sizeof label, "mpi.icoll %s %s %d %llu %llu %u", op, info.id, root_world,
                  static_cast<unsigned long long>(sent), static_cast<unsigned long long>(received), slot);
  }
  const uint32_t id = gs_intern(label);
  if (cached) entry = NameCacheEntry{{a, sent, received, d}, id};
  return id;
}

}  // namespace grainscope::mpi
