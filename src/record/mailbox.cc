#include "record/mailbox.h"

#include <sys/mman.h>

#include <atomic>
#include <cstring>

namespace grainscope::record {
namespace {

constexpr uint32_t kMaxNames = 65536;
// Chunk k holds kFirstChunkSlots << k slots: a name with a few messages takes 16 KiB, and 24
// chunks hold 4 Gi messages, so a mailbox is a few cache lines, not a table of thousands of
// pointers.
constexpr uint64_t kFirstChunkSlots = 256;
constexpr uint32_t kMaxChunks = 24;
// Populated at open: 1 MiB holds the mailboxes and first chunks of dozens of names, or one name's
// first 15 000 messages.
constexpr size_t kArenaBytes = size_t{1} << 20;
constexpr size_t kPage = 4096;

// Cache-line sized and aligned: the sender of message k+1 must not take the line the receiver
// of message k is reading. Each post then moves one line from sender to receiver, the piggyback
// itself; a shared line would cost the sender a second cross-core miss per message, a cost the
// calibration cannot see and the compensation would leave in (docs/compensation.md).
struct alignas(64) Slot {
  std::atomic<uint64_t> filled;  // sequence + 1 once `value` is written; 0 in fresh memory
  Piggyback value;
};

// The counters on lines of their own for the same reason: senders bump `sent`, receivers
// `received`, and a receiver reads `sent` only when the slot it wants is not filled yet.
struct Mailbox {
  alignas(64) std::atomic<uint64_t> sent;
  alignas(64) std::atomic<uint64_t> received;
  alignas(64) std::atomic<Slot*> chunks[kMaxChunks];
};

// Mailboxes and chunks are used in place in zero-filled memory (all-zero bytes are their empty
// state: counters 0, no chunks, no slot filled): no constructor writes the memory again.
std::atomic<Mailbox*> g_mailboxes[kMaxNames];

char* g_arena = nullptr;
std::atomic<size_t> g_arena_used{0};

size_t ChunkBytes(uint32_t k) { return (kFirstChunkSlots << k) * sizeof(Slot); }
size_t RoundToPage(size_t bytes) { return (bytes + kPage - 1) & ~(kPage - 1); }

bool InArena(const void* p) {
  const char* c = static_cast<const char*>(p);
  return g_arena != nullptr && c >= g_arena && c < g_arena + kArenaBytes;
}

// Zero-filled, populated memory: from the arena while it lasts, else a mapping of its own.
void* Allocate(size_t bytes) {
  bytes = (bytes + 63) & ~size_t{63};
  if (g_arena != nullptr) {
    const size_t at = g_arena_used.fetch_add(bytes, std::memory_order_relaxed);
    if (at + bytes <= kArenaBytes) return g_arena + at;
  }
  void* p = mmap(nullptr, RoundToPage(bytes), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
  return p == MAP_FAILED ? nullptr : p;
}

void Release(void* p, size_t bytes) {
  if (p != nullptr && !InArena(p)) munmap(p, RoundToPage(bytes));  // arena memory is reset at open
}

// Installs with a compare-exchange: concurrent first users allocate, one wins, the others release.
template <class T>
T* GetOrCreate(std::atomic<T*>& cell, size_t bytes) {
  T* p = cell.load(std::memory_order_acquire);
  if (p != nullptr) return p;
  auto* fresh = static_cast<T*>(Allocate(bytes));
  if (fresh == nullptr) return nullptr;
  if (cell.compare_exchange_strong(p, fresh, std::memory_order_acq_rel)) return fresh;
  Release(fresh, bytes);
  return p;
}

// Message `seq` lives in chunk k = floor(log2(seq / kFirstChunkSlots + 1)), which starts at
// sequence kFirstChunkSlots * (2^k - 1).
Slot* SlotFor(uint32_t name, uint64_t seq, bool create) {
  if (name >= kMaxNames) return nullptr;
  const uint64_t q = seq / kFirstChunkSlots + 1;
  const auto k = static_cast<uint32_t>(63 - __builtin_clzll(q));
  if (k >= kMaxChunks) return nullptr;
  Mailbox* box = create ? GetOrCreate(g_mailboxes[name], sizeof(Mailbox)) : g_mailboxes[name].load(std::memory_order_acquire);
  if (box == nullptr) return nullptr;
  std::atomic<Slot*>& cell = box->chunks[k];
  Slot* chunk = create ? GetOrCreate(cell, ChunkBytes(k)) : cell.load(std::memory_order_acquire);
  return chunk == nullptr ? nullptr : chunk + (seq - kFirstChunkSlots * ((uint64_t{1} << k) - 1));
}

}  // namespace

void MailboxPost(uint32_t name, const Piggyback& p) {
  // The sequence is claimed at the send-begin, before the program hands its data over, so the
  // matching receive (which ends after the data arrived) finds the entry written or about to be.
  Mailbox* box = name < kMaxNames ? GetOrCreate(g_mailboxes[name], sizeof(Mailbox)) : nullptr;
  if (box == nullptr) return;
  const uint64_t seq = box->sent.fetch_add(1, std::memory_order_relaxed);
  Slot* slot = SlotFor(name, seq, true);
  if (slot == nullptr) return;
  slot->value = p;
  slot->filled.store(seq + 1, std::memory_order_release);
}

bool MailboxTake(uint32_t name, Piggyback* out) {
  Mailbox* box = name < kMaxNames ? g_mailboxes[name].load(std::memory_order_acquire) : nullptr;
  if (box == nullptr) return false;
  const uint64_t seq = box->received.fetch_add(1, std::memory_order_relaxed);
  // The usual case, a message that arrived before its receive ended: the slot is filled, and the
  // sender's counter need not be read (that would pull its line away from the sender).
  if (Slot* slot = SlotFor(name, seq, false); slot != nullptr && slot->filled.load(std::memory_order_acquire) == seq + 1) {
    *out = slot->value;
    return true;
  }
  // A sender that claimed this sequence writes it within nanoseconds; one that never sent (the
  // program's queue was filled otherwise) never will: wait a bounded while, then give up.
  for (int spin = 0; spin < 4096; ++spin) {
    if (seq < box->sent.load(std::memory_order_acquire)) {
      Slot* slot = SlotFor(name, seq, false);
      if (slot != nullptr && slot->filled.load(std::memory_order_acquire) == seq + 1) {
        *out = slot->value;
        return true;
      }
    } else if (spin > 64) {
      return false;  // nothing was sent under this sequence
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }
  return false;
}

void MailboxesReset() {
  for (auto& cell : g_mailboxes) {
    Mailbox* box = cell.exchange(nullptr, std::memory_order_acq_rel);
    if (box == nullptr) continue;
    for (uint32_t k = 0; k < kMaxChunks; ++k) Release(box->chunks[k].load(std::memory_order_relaxed), ChunkBytes(k));
    Release(box, sizeof(Mailbox));
  }
  if (g_arena == nullptr) {
    void* p = mmap(nullptr, kArenaBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (p != MAP_FAILED) g_arena = static_cast<char*>(p);
  } else {
    const size_t used = g_arena_used.load(std::memory_order_relaxed);
    std::memset(g_arena, 0, used < kArenaBytes ? used : kArenaBytes);
  }
  g_arena_used.store(0, std::memory_order_relaxed);
}

}  // namespace grainscope::record
