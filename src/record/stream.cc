#include "record/stream.h"

#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>

#include <cstdio>
#include <cstring>
#include <new>

#include "record/flusher.h"
#include "record/registry.h"
#include "record/runtime.h"

namespace grainscope::record {

constinit thread_local ThreadStream* t_stream __attribute__((tls_model("initial-exec"))) = &g_null_stream;
constinit ThreadStream g_null_stream;  // cur == end == nullptr: every event takes the slow path
ThreadStream* g_streams[kMaxStreams];
std::atomic<uint32_t> g_stream_count{0};
std::atomic<uint64_t> g_owner_block_writes{0};

namespace {

pthread_mutex_t g_streams_mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_key_t g_exit_key;
uint32_t g_next_stream_id = 0;        // per generation; guarded by g_streams_mutex
uint32_t g_stream_id_generation = 0;  // the generation g_next_stream_id counts for

void PauseBriefly() { sched_yield(); }

void SleepMicroseconds(long us) {
  timespec ts{0, us * 1000};
  nanosleep(&ts, nullptr);
}

uint32_t BlockCountFor(uint32_t buffer_kib) {
  uint32_t blocks = buffer_kib / (kBlockRecords * sizeof(gst::Record) / 1024);
  if (blocks < 2) blocks = 2;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  return blocks;
}

// Starts filling block `index`.
void BeginBlock(ThreadStream& s, uint32_t index) {
  Block& b = s.blocks[index];
  b.state.store(kFilling, std::memory_order_relaxed);
  s.current = index;
  s.current_shared.store(index, std::memory_order_relaxed);
  s.end.store(b.data + kBlockRecords, std::memory_order_relaxed);
  s.cur.store(b.data, std::memory_order_release);
}

// Publishes the block being filled, if it holds any record.
void PublishCurrent(ThreadStream& s) {
  Block& b = s.blocks[s.current];
  if (b.state.load(std::memory_order_relaxed) != kFilling) return;
  const gst::Record* cur = s.cur.load(std::memory_order_relaxed);
  b.count = static_cast<uint32_t>(cur - b.data);
  if (b.count == 0) {
    b.state.store(kFree, std::memory_order_release);
    return;
  }
  b.sequence = s.next_sequence++;
  b.stream = s.id;
  b.state.store(kFull, std::memory_order_release);
}

// Whether the owner writing `candidate` now would put more than a ring of its stream's blocks
// in the file after one of them another thread (the flusher) is still writing. A SIGKILL runs no
// handler: it loses that block in flight, and the reader ends the stream at the gap (the events
// after it cannot be trusted to nest or to pair, gst_reader.cc EndStreamAt), so the blocks
// written after it are lost as well. Bounded here: a kill loses at most the block in flight, one
// ring after it and the ring in memory. The owner waits only when the flusher has been stalled
// for a whole ring of the owner's own writes (descheduled, on an overloaded machine); without the
// bound it wrote 59 blocks past a stalled flusher in one CI run.
bool FarAheadOfAWriteInFlight(const ThreadStream& s, const Block& candidate) {
  for (uint32_t k = 0; k < s.block_count; ++k) {
    const Block& other = s.blocks[k];
    if (other.state.load(std::memory_order_acquire) != kWriting || other.stream != candidate.stream) continue;
    if (candidate.sequence > other.sequence + s.block_count) return true;
  }
  return false;
}

// Owner: the block to fill next, searching the ring from `from`. A free block if there is one:
// the ring's order does not matter (blocks carry their sequence number), so the owner never waits
// for the flusher to finish the one block it is compressing while another is free. Else the owner
// writes the first published block itself and takes it (the program slows down instead of losing
// events). Only when every other block is being written, or the flusher is a ring behind, does
// it wait.
uint32_t TakeBlockToFill(ThreadStream& s, uint32_t from) {
  for (;;) {
    uint32_t full = s.block_count;
    for (uint32_t k = 0; k < s.block_count; ++k) {
      const uint32_t b = (from + k) % s.block_count;
      const uint32_t st = s.blocks[b].state.load(std::memory_order_acquire);
      if (st == kFree) return b;
      if (st == kFull && full == s.block_count) full = b;
    }
    if (full < s.block_count && !FarAheadOfAWriteInFlight(s, s.blocks[full])) {
      Block& b = s.blocks[full];
      uint32_t st = kFull;
      if (!b.state.compare_exchange_strong(st, kWriting, std::memory_order_acq_rel)) continue;
      b.writer.store(s.tid, std::memory_order_relaxed);
      g_owner_block_writes.fetch_add(1, std::memory_order_relaxed);
      BlockCoder coder;
      coder.delta = s.delta_scratch;
      return WriteClaimedBlock(b, s.writer, &coder) ? full : from;
    }
    if (g_crashing.load(std::memory_order_relaxed)) return from;  // the handler takes it from here
    PauseBriefly();  // every other block is being written, or the flusher is a ring behind
  }
}

// Sets up (or, for a stream of an earlier trace, resets) the calling thread's stream. A new
// thread takes over the stream of an exited one: blocks that thread published and the flusher
// has not written yet keep their own stream id and sequence and are written as usual (by the
// flusher, or by the new owner when it comes round to them), so a program that starts short
// threads over and over neither waits for the flusher nor maps new buffers.
ThreadStream* RegisterThread(ThreadStream* previous) {
  pthread_mutex_lock(&g_streams_mutex);
  const uint32_t generation = g_generation.load(std::memory_order_acquire);
  if (g_stream_id_generation != generation) {
    g_stream_id_generation = generation;
    g_next_stream_id = 0;
  }
  ThreadStream* s = previous;
  if (s == nullptr) {
    const uint32_t n = g_stream_count.load(std::memory_order_relaxed);
    for (uint32_t i = 0; i < n && s == nullptr; ++i)
      if (g_streams[i]->exited.load(std::memory_order_acquire) != 0) s = g_streams[i];
  }
  if (s == nullptr && g_stream_count.load(std::memory_order_relaxed) < kMaxStreams) {
    const uint32_t blocks = BlockCountFor(g_options.buffer_kib);
    const size_t bytes = size_t{blocks} * kBlockRecords * sizeof(gst::Record);
    // Populated now, so the hot path never takes a page fault on a fresh buffer.
    void* memory = mmap(nullptr, sizeof(ThreadStream) + bytes + kDeltaScratchBytes, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
    if (memory != MAP_FAILED) {
      s = new (memory) ThreadStream();
      s->memory = reinterpret_cast<gst::Record*>(static_cast<char*>(memory) + sizeof(ThreadStream));
      s->delta_scratch = static_cast<unsigned char*>(memory) + sizeof(ThreadStream) + bytes;
      s->block_count = blocks;
      for (uint32_t b = 0; b < blocks; ++b) s->blocks[b].data = s->memory + size_t{b} * kBlockRecords;
      g_streams[g_stream_count.load(std::memory_order_relaxed)] = s;
      g_stream_count.fetch_add(1, std::memory_order_release);
    }
  }
  if (s == nullptr) {
    pthread_mutex_unlock(&g_streams_mutex);
    return nullptr;
  }
  s->id = g_next_stream_id++;
  s->generation = generation;
  s->tid = CurrentTid();
  s->next_sequence = 0;
  s->processor = gst::kNoExternalId;
  s->exited.store(0, std::memory_order_release);
  pthread_mutex_unlock(&g_streams_mutex);

  // Start in a free block, searching from the one after the last used: the previous owner's
  // last blocks may still wait for the flusher, and writing them here would put a system call on
  // the new thread's first event.
  BeginBlock(*s, TakeBlockToFill(*s, (s->current + 1) % s->block_count));
  AnalysisStartLocation(s->analysis, s->cur.load(std::memory_order_relaxed));
  pthread_setspecific(g_exit_key, s);
  t_stream = s;
  return s;
}

// pthread key destructor: the thread is exiting; publish what it recorded.
void OnThreadExit(void* arg) {
  auto* s = static_cast<ThreadStream*>(arg);
  s->busy.store(1, std::memory_order_seq_cst);
  // Published without waking the flusher: a system call here would lengthen every join of a
  // short thread; the flusher comes by within its idle period (50 ms), and a crash or close
  // writes the block anyway.
  if (g_state.load(std::memory_order_seq_cst) == kRecording &&
      s->generation == g_generation.load(std::memory_order_relaxed)) {
    AnalysisFinishLocation(s->analysis, s->blocks[s->current].data, s->cur.load(std::memory_order_relaxed));
    PublishCurrent(*s);
  }
  s->end.store(nullptr, std::memory_order_relaxed);
  t_stream = &g_null_stream;
  s->exited.store(1, std::memory_order_release);
  s->busy.store(0, std::memory_order_release);
}

// Writes the records [data, data + count) of a block that is not published (the one being
// filled at close or crash) as the stream's next block.
void WritePartialBlock(ThreadStream& s, Block& b, uint32_t count, WriterSlot& slot, const BlockCoder* coder,
                       bool crash) {
  if (count == 0) return;
  b.count = count;
  b.sequence = s.next_sequence++;
  b.stream = s.id;
  if (!WriteBlock(b, slot, crash, coder)) g_dropped_events.fetch_add(count, std::memory_order_relaxed);
}

// Records in the block being filled, from the owner's published end.
uint32_t FilledCount(const ThreadStream& s, const Block& b) {
  const gst::Record* cur = s.cur.load(std::memory_order_acquire);
  if (cur < b.data || cur > b.data + kBlockRecords) return 0;
  return static_cast<uint32_t>(cur - b.data);
}

bool ThisGeneration(const ThreadStream& s) {
  return s.generation == g_generation.load(std::memory_order_relaxed);
}

}  // namespace

void InitThreadExitHook() { pthread_key_create(&g_exit_key, OnThreadExit); }

gst::Record* AcquireSlow(uint32_t slots) {
  ThreadStream* s = t_stream;
  if (s == &g_null_stream) {
    EnsureStarted();
    if (g_state.load(std::memory_order_acquire) != kRecording) return nullptr;
    s = RegisterThread(nullptr);
    if (s == nullptr) {
      g_dropped_events.fetch_add(1, std::memory_order_relaxed);
      return nullptr;
    }
    return s->cur.load(std::memory_order_relaxed);
  }
  // Announce before looking at the state; close sets the state, then waits for busy == 0.
  s->busy.store(1, std::memory_order_seq_cst);
  gst::Record* result = nullptr;
  if (g_state.load(std::memory_order_seq_cst) != kRecording) {
    // Not recording (closed, crashing): drop the event.
  } else if (!ThisGeneration(*s)) {
    s->busy.store(0, std::memory_order_release);
    s = RegisterThread(s);  // a trace opened after the one this stream wrote to
    return s == nullptr ? nullptr : s->cur.load(std::memory_order_relaxed);
  } else if (s->end.load(std::memory_order_relaxed) != nullptr) {
    (void)slots;  // a block always has room for the largest record (2 slots) when it starts
    const gst::Record* old_cur = s->cur.load(std::memory_order_relaxed);
    AnalysisBlockPublished(s->analysis, s->blocks[s->current].data, old_cur);
    PublishCurrent(*s);
    // Woken once per half ring, not per block: a wake-up is a system call, and on a busy machine
    // the woken flusher preempts this very thread, two context switches per block. The flusher
    // then writes half a ring in one go; if it is late anyway, TakeBlockToFill writes.
    if (s->next_sequence % (s->block_count / 2) == 0) WakeFlusher();
    const uint32_t next = TakeBlockToFill(*s, (s->current + 1) % s->block_count);
    if (!g_crashing.load(std::memory_order_relaxed)) {
      BeginBlock(*s, next);
      result = s->cur.load(std::memory_order_relaxed);
      AnalysisBlockStarted(s->analysis, old_cur, result);
    }
  }
  s->busy.store(0, std::memory_order_release);
  return result;
}

bool WriteBlock(const Block& block, WriterSlot& slot, bool in_crash_handler, const BlockCoder* coder) {
  gst::ChunkHeader h{};
  h.type = gst::kChunkEventBlock;
  h.stream = block.stream;
  h.sequence = block.sequence;
  h.raw_size = block.count * static_cast<uint32_t>(sizeof(gst::Record));
  h.stored_size = h.raw_size;
  const void* payload = block.data;
  if (coder != nullptr && coder->delta != nullptr && g_options.compress) {
    const size_t n = gst::EncodeDeltaBlock(block.data, block.count, coder->delta);
    if (n < h.raw_size) {
      h.flags = gst::kChunkDelta;
      h.stored_size = static_cast<uint32_t>(n);
      payload = coder->delta;
    }
    if (coder->zstd != nullptr) {
      const size_t z = CompressBlock(coder->zstd, payload, h.stored_size, coder->zstd_out, coder->zstd_out_size);
      if (z > 0) {
        h.flags |= gst::kChunkZstd;
        h.stored_size = static_cast<uint32_t>(z);
        payload = coder->zstd_out;
      }
    }
  }
  return g_sink.Write(slot, h, payload, in_crash_handler);
}

bool WriteClaimedBlock(Block& block, WriterSlot& slot, const BlockCoder* coder) {
  if (!WriteBlock(block, slot, false, coder)) {
    if (g_crashing.load(std::memory_order_relaxed)) {
      block.state.store(kFull, std::memory_order_release);
      return false;
    }
    g_dropped_events.fetch_add(block.count, std::memory_order_relaxed);
  }
  block.state.store(kFree, std::memory_order_release);
  return true;
}

void FinishAnalysesForClose() {
  const uint32_t n = g_stream_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) {
    ThreadStream& s = *g_streams[i];
    if (!ThisGeneration(s) || s.exited.load(std::memory_order_acquire) != 0) continue;  // folded at exit
    AnalysisFinishLocation(s.analysis, s.blocks[s.current_shared.load(std::memory_order_relaxed)].data,
                           s.cur.load(std::memory_order_acquire));
  }
}

void DrainStreamsForClose() {
  const uint32_t n = g_stream_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) g_streams[i]->end.store(nullptr, std::memory_order_relaxed);
  // Owners already in their slow path finish it (state is no longer kRecording).
  for (uint32_t i = 0; i < n; ++i)
    while (g_streams[i]->busy.load(std::memory_order_seq_cst) != 0) PauseBriefly();
  StopFlusher();
  WriterSlot slot;
  static unsigned char scratch[kDeltaScratchBytes];  // Close runs once at a time (runtime.cc)
  BlockCoder coder;
  coder.delta = scratch;
  for (uint32_t i = 0; i < n; ++i) {
    ThreadStream& s = *g_streams[i];
    if (!ThisGeneration(s)) continue;
    // Published blocks in sequence order, then the one being filled.
    for (uint32_t k = 1; k <= s.block_count; ++k) {
      Block& b = s.blocks[(s.current_shared.load(std::memory_order_relaxed) + k) % s.block_count];
      uint32_t st = kFull;
      if (b.state.compare_exchange_strong(st, kWriting, std::memory_order_acq_rel)) (void)WriteClaimedBlock(b, slot, &coder);
    }
    // A thread that exited after the state changed left its block being filled: written here.
    Block& filling = s.blocks[s.current_shared.load(std::memory_order_relaxed)];
    if (filling.state.load(std::memory_order_acquire) == kFilling) {
      WritePartialBlock(s, filling, FilledCount(s, filling), slot, &coder, false);
      filling.state.store(kFree, std::memory_order_release);
    }
  }
}

namespace {

// Waits while a block is being written by another thread (they run on while this thread handles
// the signal: a write completes, or, seeing the crash, its writer gives the block back as kFull),
// for at most what is left of `budget_ms`.
void WaitForOtherWriters(pid_t self, uint32_t n, int& budget_ms) {
  for (; budget_ms > 0; --budget_ms) {
    bool busy = false;
    for (uint32_t i = 0; i < n && !busy; ++i) {
      const ThreadStream& s = *g_streams[i];
      for (uint32_t b = 0; b < s.block_count && !busy; ++b) {
        busy = s.blocks[b].state.load(std::memory_order_acquire) == kWriting && s.blocks[b].writer.load(std::memory_order_relaxed) != self;
      }
    }
    if (!busy) return;
    SleepMicroseconds(1000);
  }
}

// One pass over the current trace's published blocks, writing each; returns whether it found one
// another thread held (being written, or claimed after the wait: given back as kFull later).
bool WritePublishedForCrash(pid_t self, uint32_t n, WriterSlot& slot, uint32_t done_stream, uint32_t done_sequence) {
  bool held = false;
  for (uint32_t i = 0; i < n; ++i) {
    ThreadStream& s = *g_streams[i];
    if (!ThisGeneration(s)) continue;
    const uint32_t current = s.current_shared.load(std::memory_order_relaxed);
    for (uint32_t k = 1; k <= s.block_count; ++k) {
      Block& b = s.blocks[(current + k) % s.block_count];
      uint32_t st = b.state.load(std::memory_order_acquire);
      // A block this very thread was writing when the signal came: the crash handler has redone
      // that write from its writer slot if it had reserved space (done_stream/done_sequence),
      // else it is written here. A published one is claimed first, as the flusher claims it.
      const bool interrupted_here = st == kWriting && b.writer.load(std::memory_order_relaxed) == self &&
                                    !(b.stream == done_stream && b.sequence == done_sequence);
      const bool claimed = st == kFull && b.state.compare_exchange_strong(st, kWriting, std::memory_order_acq_rel);
      if (st == kWriting && b.writer.load(std::memory_order_relaxed) != self) held = true;
      if (claimed || interrupted_here) {
        b.writer.store(self, std::memory_order_relaxed);
        if (!WriteBlock(b, slot, true, nullptr))
          g_dropped_events.fetch_add(b.count, std::memory_order_relaxed);
        b.state.store(kFree, std::memory_order_release);
      }
    }
  }
  return held;
}

}  // namespace

void DrainStreamsForCrash(uint32_t done_stream, uint32_t done_sequence) {
  static WriterSlot slot;  // the handler runs once; no stack space needed for it
  const pid_t self = CurrentTid();
  const uint32_t n = g_stream_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) g_streams[i]->end.store(nullptr, std::memory_order_relaxed);
  // Until no other thread holds a block: the flusher may claim a published block after a wait
  // ended, see the crash in its write, and give the block back; a single pass would skip it while
  // held and lose it (RecordCrash.SegmentationFault lost a joined thread's events that way about
  // once in 70 runs). Blocks still held when the 500 ms are up are lost.
  int budget_ms = 500;
  do {
    WaitForOtherWriters(self, n, budget_ms);
  } while (WritePublishedForCrash(self, n, slot, done_stream, done_sequence) && budget_ms > 0);
  for (uint32_t i = 0; i < n; ++i) {
    ThreadStream& s = *g_streams[i];
    if (!ThisGeneration(s)) continue;
    Block& filling = s.blocks[s.current_shared.load(std::memory_order_relaxed)];
    if (filling.state.load(std::memory_order_acquire) == kFilling) {
      WritePartialBlock(s, filling, FilledCount(s, filling), slot, nullptr, true);
      filling.state.store(kFree, std::memory_order_release);
    }
  }
}

void WriteLocationDef(const ThreadStream& stream, const char* name) {
  unsigned char buffer[sizeof(gst::LocationDef) + 256];
  size_t name_size = std::strlen(name);
  if (name_size > 256) name_size = 256;
  gst::LocationDef def{};
  def.os_thread_id = static_cast<uint64_t>(stream.tid);
  def.thread_index = stream.id;
  def.name_size = static_cast<uint32_t>(name_size);
  std::memcpy(buffer, &def, sizeof def);
  std::memcpy(buffer + sizeof def, name, name_size);
  WriteSmallChunk(gst::kChunkLocationDef, stream.id, buffer, static_cast<uint32_t>(sizeof def + name_size));
}

}  // namespace grainscope::record
