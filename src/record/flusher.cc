#include "record/flusher.h"

#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>

#include <zstd.h>

#include "record/clock.h"
#include "record/runtime.h"
#include "record/stream.h"

namespace grainscope::record {
namespace {

// zstd's fastest level: the flusher must keep up with threads that record tens of millions of
// events per second; when it does not, owners write their blocks raw instead of waiting.
constexpr int kZstdLevel = 1;
constexpr int64_t kClockSampleIntervalNs = 100'000'000;  // TSC calibration samples: 10 per second
constexpr long kIdleWaitNs = 50'000'000;
// After an owner had to write a block itself, the flusher writes raw for this long: compression
// costs about twice what a raw write does, and a flusher that is behind must catch up, not fall
// further behind (two threads recording flat out on two cores leave it no processor of its own).
constexpr int64_t kRawAfterOwnerWriteNs = 100'000'000;

pthread_t g_thread;
std::atomic<bool> g_running{false};
std::atomic<bool> g_stop{false};
std::atomic<uint32_t> g_wake_word{0};  // futex word: bumped by every wake-up
std::atomic<uint32_t> g_sleeping{0};   // the flusher is (about to be) waiting on the futex
WriterSlot g_slot;

void FutexWait(std::atomic<uint32_t>& word, uint32_t expected, long timeout_ns) {
  timespec ts{0, timeout_ns};
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT_PRIVATE, expected, &ts, nullptr, 0);
}

void FutexWake(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
}

// Blocks of `s` published and not yet taken by a writer.
uint32_t Backlog(const ThreadStream& s) {
  uint32_t n = 0;
  for (uint32_t b = 0; b < s.block_count; ++b) n += s.blocks[b].state.load(std::memory_order_relaxed) == kFull;
  return n;
}

// Whether the flusher may compress: not for a while after an owner had to write a block itself.
class CompressionPace {
 public:
  CompressionPace() : seen_(g_owner_block_writes.load(std::memory_order_relaxed)) {}

  bool ZstdAllowed() {
    const uint64_t owner_writes = g_owner_block_writes.load(std::memory_order_relaxed);
    if (owner_writes != seen_) {
      seen_ = owner_writes;
      raw_until_ = MonotonicNs() + kRawAfterOwnerWriteNs;
    }
    return raw_until_ == 0 || MonotonicNs() >= raw_until_;
  }

 private:
  uint64_t seen_;  // owner writes before this trace's flusher started do not count
  int64_t raw_until_ = 0;
};

// A switch that forces the rare path the SIGKILL test needs (DuckDB's way of testing what load
// does only now and then): GRAINSCOPE_TEST_FLUSHER_STALL_US makes the flusher hold each block it
// claims that long before writing it, as a flusher descheduled or blocked in the kernel would.
long g_test_stall_us = 0;

// Writes every published block once; returns how many. Blocks are delta-coded (a few ns per
// event, 4x smaller); zstd runs on the coded block only while the flusher keeps up with the
// stream (less than the half ring an owner publishes between two wake-ups waiting, stream.cc) and
// no owner had to write a block itself lately: a thread recording flat out produces more than
// 1 GB/s of records, and falling behind costs the program a write of its own per block.
uint32_t WritePublished(const BlockCoder& coder, CompressionPace& pace) {
  const bool zstd_allowed = coder.zstd != nullptr && pace.ZstdAllowed();
  uint32_t written = 0;
  const uint32_t n = g_stream_count.load(std::memory_order_acquire);
  const pid_t self = CurrentTid();
  for (uint32_t i = 0; i < n; ++i) {
    ThreadStream& s = *g_streams[i];
    for (uint32_t b = 0; b < s.block_count; ++b) {
      Block& block = s.blocks[b];
      // Once the crash handler runs, it writes what is published (stream.cc, DrainStreamsForCrash).
      if (g_crashing.load(std::memory_order_relaxed)) return written;
      uint32_t st = kFull;
      if (!block.state.compare_exchange_strong(st, kWriting, std::memory_order_acq_rel)) continue;
      block.writer.store(self, std::memory_order_relaxed);
      if (g_test_stall_us > 0) usleep(static_cast<useconds_t>(g_test_stall_us));
      BlockCoder c = coder;
      if (!zstd_allowed || Backlog(s) >= s.block_count / 2) c.zstd = nullptr;
      if (!WriteClaimedBlock(block, g_slot, &c)) return written;  // the crash handler writes it
      ++written;
    }
  }
  return written;
}

void* FlusherMain(void*) {
  // The flusher must never record: it has no stream, and fatal signals go to other threads when
  // they can (the program's own threads are the interesting ones).
  BlockCoder coder;
  if (g_options.compress) {
    coder.delta = static_cast<unsigned char*>(std::malloc(kDeltaScratchBytes));
    coder.zstd_out_size = CompressBound(kDeltaScratchBytes);
    coder.zstd_out = std::malloc(coder.zstd_out_size);
    coder.zstd = coder.zstd_out != nullptr && g_options.zstd ? NewCompressionContext() : nullptr;
  }
  CompressionPace pace;
  if (const char* stall = std::getenv("GRAINSCOPE_TEST_FLUSHER_STALL_US")) g_test_stall_us = std::atol(stall);
  int64_t last_sample = MonotonicNs();
  for (;;) {
    const uint32_t word = g_wake_word.load(std::memory_order_acquire);
    const uint32_t written = WritePublished(coder, pace);
    if (g_crashing.load(std::memory_order_relaxed)) break;
    if (MonotonicNs() - last_sample > kClockSampleIntervalNs) {
      WriteClockSample(false);
      last_sample = MonotonicNs();
    }
    if (written > 0) continue;
    if (g_stop.load(std::memory_order_acquire)) break;
    g_sleeping.store(1, std::memory_order_seq_cst);
    // A block published after `word` was read changed the word: no wait then.
    if (g_wake_word.load(std::memory_order_seq_cst) == word) FutexWait(g_wake_word, word, kIdleWaitNs);
    g_sleeping.store(0, std::memory_order_relaxed);
  }
  std::free(coder.delta);
  std::free(coder.zstd_out);
  FreeCompressionContext(coder.zstd);
  return nullptr;
}

}  // namespace

bool StartFlusher() {
  g_stop.store(false);
  // Signals are blocked in the flusher so that a SIGTERM sent to the process is handled by a
  // recording thread, never by the thread the crash handler may have to wait for.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  const bool ok = pthread_create(&g_thread, nullptr, FlusherMain, nullptr) == 0;
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  g_running.store(ok, std::memory_order_release);
  return ok;
}

void StopFlusher() {
  if (!g_running.load(std::memory_order_acquire)) return;
  g_stop.store(true, std::memory_order_release);
  g_wake_word.fetch_add(1, std::memory_order_seq_cst);
  FutexWake(g_wake_word);
  pthread_join(g_thread, nullptr);
  g_running.store(false, std::memory_order_release);
}

bool FlusherRunning() { return g_running.load(std::memory_order_acquire); }

void WakeFlusher() {
  g_wake_word.fetch_add(1, std::memory_order_seq_cst);
  if (g_sleeping.load(std::memory_order_seq_cst) != 0) FutexWake(g_wake_word);
}

WriterSlot& FlusherSlot() { return g_slot; }

size_t CompressBlock(void* context, const void* in, size_t in_size, void* out, size_t out_size) {
  const size_t n = ZSTD_compressCCtx(static_cast<ZSTD_CCtx*>(context), out, out_size, in, in_size, kZstdLevel);
  if (ZSTD_isError(n) || n >= in_size) return 0;
  return n;
}

size_t CompressBound(size_t in_size) { return ZSTD_compressBound(in_size); }
void* NewCompressionContext() { return ZSTD_createCCtx(); }
void FreeCompressionContext(void* context) { ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(context)); }

}  // namespace grainscope::record
