#include "record/registry.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "format/gst/gst_format.h"
#include "record/runtime.h"

namespace grainscope::record {
namespace {

pthread_mutex_t g_definitions_mutex = PTHREAD_MUTEX_INITIALIZER;
WriterSlot g_definitions_slot;

// A copy of a region's definition, kept to write it again into a later trace.
struct RegionCopy {
  char* name;
  char* file;
  uint32_t line;
  uint8_t role;
  int64_t external_id;
};
RegionCopy* g_regions = nullptr;  // index id - 1
uint32_t g_region_count = 0;
uint32_t g_region_capacity = 0;

// Interned strings. Entries are immutable once published and never freed.
struct StringEntry {
  uint64_t hash;
  uint32_t id;
  uint32_t size;
  char text[];
};
constexpr uint32_t kStringTableSize = 1u << 16;  // slots; at most 3/4 are filled
constexpr uint32_t kMaxStrings = kStringTableSize / 4 * 3;
std::atomic<StringEntry*> g_string_table[kStringTableSize];
StringEntry** g_strings_by_id = nullptr;  // index id - 1; guarded by the mutex
uint32_t g_string_count = 0;
uint32_t g_strings_capacity = 0;

// The seed's grain ids: small ids in a lock-free array, the rest through regions searched under
// the lock (programs with that many grains are not the seed's).
constexpr int64_t kDirectGrains = 4096;
std::atomic<uint32_t> g_grain_regions[kDirectGrains];

uint64_t HashBytes(const char* text, size_t size) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (size_t i = 0; i < size; ++i) h = (h ^ static_cast<unsigned char>(text[i])) * 1099511628211ull;
  return h;
}

char* CopyString(const char* s) {
  if (s == nullptr) s = "";
  size_t n = std::strlen(s);
  char* copy = static_cast<char*>(std::malloc(n + 1));
  if (copy != nullptr) std::memcpy(copy, s, n + 1);
  return copy;
}

template <typename T>
bool Grow(T*& array, uint32_t& capacity, uint32_t needed) {
  if (needed <= capacity) return true;
  uint32_t next = capacity == 0 ? 64 : capacity * 2;
  while (next < needed) next *= 2;
  void* grown = std::realloc(array, sizeof(T) * next);
  if (grown == nullptr) return false;
  array = static_cast<T*>(grown);
  capacity = next;
  return true;
}

bool Recording() {
  EnsureStarted();
  return g_state.load(std::memory_order_acquire) == kRecording;
}

void WriteRegionDef(uint32_t id, const RegionCopy& r) {
  // Longer names are cut (docs/recording.md): the buffer lives on the registering thread's stack.
  constexpr size_t kMaxText = 1024;
  const size_t name_size = std::min(std::strlen(r.name), kMaxText);
  const size_t file_size = std::min(std::strlen(r.file), kMaxText);
  unsigned char buffer[sizeof(gst::RegionDef) + 2 * kMaxText];
  gst::RegionDef def{};
  def.id = id;
  def.role = r.role;
  def.external_id = r.external_id;
  def.line = r.line;
  def.name_size = static_cast<uint32_t>(name_size);
  def.file_size = static_cast<uint32_t>(file_size);
  std::memcpy(buffer, &def, sizeof def);
  std::memcpy(buffer + sizeof def, r.name, name_size);
  std::memcpy(buffer + sizeof def + name_size, r.file, file_size);
  WriteSmallChunk(gst::kChunkRegionDef, 0, buffer, static_cast<uint32_t>(sizeof def + name_size + file_size));
}

void WriteStringDef(const StringEntry& e) {
  unsigned char buffer[sizeof(gst::StringDef) + 1024];
  gst::StringDef def{e.id, e.size};
  std::memcpy(buffer, &def, sizeof def);
  std::memcpy(buffer + sizeof def, e.text, e.size);
  WriteSmallChunk(gst::kChunkStringDef, 0, buffer, static_cast<uint32_t>(sizeof def + e.size));
}

// Adds a region; definitions lock held. Returns its id, 0 when out of memory.
uint32_t AddRegionLocked(const char* name, const char* file, uint32_t line, uint8_t role, int64_t external_id) {
  if (!Grow(g_regions, g_region_capacity, g_region_count + 1)) return 0;
  RegionCopy copy{CopyString(name), CopyString(file), line, role, external_id};
  if (copy.name == nullptr || copy.file == nullptr) {
    std::free(copy.name);
    std::free(copy.file);
    return 0;
  }
  g_regions[g_region_count] = copy;
  const uint32_t id = ++g_region_count;
  WriteRegionDef(id, copy);
  return id;
}

}  // namespace

void LockDefinitions() { pthread_mutex_lock(&g_definitions_mutex); }
void UnlockDefinitions() { pthread_mutex_unlock(&g_definitions_mutex); }

bool WriteSmallChunk(uint32_t type, uint32_t stream, const void* payload, uint32_t size) {
  gst::ChunkHeader h{};
  h.type = type;
  h.stored_size = size;
  h.raw_size = size;
  h.stream = stream;
  return g_sink.Write(g_definitions_slot, h, payload, false);
}

uint32_t RegisterRegion(gs_region* region) {
  if (!Recording()) return 0;
  LockDefinitions();
  uint32_t id = __atomic_load_n(&region->id, __ATOMIC_ACQUIRE);
  if (id == 0) {
    const uint8_t role = region->role <= gst::kRoleOther ? static_cast<uint8_t>(region->role)
                                                         : static_cast<uint8_t>(gst::kRoleOther);
    id = AddRegionLocked(region->name, region->file, region->line, role, region->external_id);
    __atomic_store_n(&region->id, id, __ATOMIC_RELEASE);
  }
  UnlockDefinitions();
  return id;
}

uint32_t InternString(const char* text, size_t size) {
  if (size > 1024) size = 1024;  // names are short; a longer one is cut (docs/recording.md)
  const uint64_t hash = HashBytes(text, size);
  const uint32_t mask = kStringTableSize - 1;
  uint32_t slot = static_cast<uint32_t>(hash) & mask;
  for (;;) {  // lock-free lookup
    StringEntry* e = g_string_table[slot].load(std::memory_order_acquire);
    if (e == nullptr) break;
    if (e->hash == hash && e->size == size && std::memcmp(e->text, text, size) == 0) return e->id;
    slot = (slot + 1) & mask;
  }
  if (!Recording()) return 0;
  LockDefinitions();
  uint32_t id = 0;
  for (;;) {  // again under the lock: another thread may have added it meanwhile
    StringEntry* e = g_string_table[slot].load(std::memory_order_acquire);
    if (e == nullptr) break;
    if (e->hash == hash && e->size == size && std::memcmp(e->text, text, size) == 0) {
      id = e->id;
      break;
    }
    slot = (slot + 1) & mask;
  }
  if (id == 0 && g_string_count < kMaxStrings && Grow(g_strings_by_id, g_strings_capacity, g_string_count + 1)) {
    auto* e = static_cast<StringEntry*>(std::malloc(sizeof(StringEntry) + size));
    if (e != nullptr) {
      e->hash = hash;
      e->size = static_cast<uint32_t>(size);
      std::memcpy(e->text, text, size);
      e->id = ++g_string_count;
      g_strings_by_id[e->id - 1] = e;
      WriteStringDef(*e);
      g_string_table[slot].store(e, std::memory_order_release);
      id = e->id;
    }
  }
  UnlockDefinitions();
  if (id == 0) g_dropped_events.fetch_add(1, std::memory_order_relaxed);
  return id;
}

uint32_t SeedGrainRegion(int64_t grain_id) {
  if (grain_id >= 0 && grain_id < kDirectGrains) {
    uint32_t id = g_grain_regions[grain_id].load(std::memory_order_acquire);
    if (id != 0) return id;
  }
  if (!Recording()) return 0;
  LockDefinitions();
  uint32_t id = 0;
  if (grain_id >= 0 && grain_id < kDirectGrains) {
    id = g_grain_regions[grain_id].load(std::memory_order_acquire);
  } else {
    for (uint32_t i = 0; i < g_region_count && id == 0; ++i) {
      if (g_regions[i].role == gst::kRoleGrain && g_regions[i].external_id == grain_id &&
          g_regions[i].line == 0)
        id = i + 1;
    }
  }
  if (id == 0) {
    char name[32];
    std::snprintf(name, sizeof name, "grain %lld", static_cast<long long>(grain_id));
    id = AddRegionLocked(name, "", 0, gst::kRoleGrain, grain_id);
    if (grain_id >= 0 && grain_id < kDirectGrains) g_grain_regions[grain_id].store(id, std::memory_order_release);
  }
  UnlockDefinitions();
  return id;
}

void RewriteDefinitions() {
  for (uint32_t i = 0; i < g_region_count; ++i) WriteRegionDef(i + 1, g_regions[i]);
  for (uint32_t i = 0; i < g_string_count; ++i) WriteStringDef(*g_strings_by_id[i]);
}

}  // namespace grainscope::record
