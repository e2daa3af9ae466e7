// Per-thread event streams: each recording thread owns a ThreadStream, a ring of fixed-size
// blocks of 16-byte records. The owner appends records to the block it is filling without any
// lock or system call; when the block is full it publishes it (state kFull) and moves to the next
// block in the ring. The flusher thread writes published blocks (compressing them) and hands them
// back (kFree). If the owner comes round the ring to a block the flusher has not written yet, the
// owner writes it itself, uncompressed: the program slows down instead of losing events.
//
// Block states:  kFree -(owner)-> kFilling -(owner)-> kFull -(flusher or owner: CAS)-> kWriting
//                -(writer)-> kFree
//
// ThreadStreams are allocated once and never freed (a stream whose thread exited is reused by a
// later thread once its blocks are written), so the flusher, close and the signal handler can
// always look at any stream.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "format/gst/gst_block_codec.h"
#include "format/gst/gst_format.h"
#include "record/onthefly.h"
#include "record/sink.h"
#include "record/visibility.h"

namespace grainscope::record {

inline constexpr uint32_t kBlockRecords = 4096;  // 64 KiB blocks
inline constexpr uint32_t kMaxBlocks = 64;
inline constexpr uint32_t kMaxStreams = 16384;

enum BlockState : uint32_t { kFree = 0, kFilling, kFull, kWriting };

struct Block {
  std::atomic<uint32_t> state{kFree};
  uint32_t count = 0;     // records (slots) in use; set before the block is published
  uint32_t sequence = 0;  // position in the stream, set when published
  uint32_t stream = 0;    // stream id, set when published
  std::atomic<pid_t> writer{0};  // the thread writing it, while kWriting (read by the crash handler)
  gst::Record* data = nullptr;
};

struct alignas(64) ThreadStream {
  // Hot: read on every event by the owner. `end` is also stored by close and by the crash
  // handler (to nullptr) to send the owner's next event into the slow path.
  std::atomic<gst::Record*> cur{nullptr};
  std::atomic<gst::Record*> end{nullptr};

  // Owner only.
  uint32_t current = 0;        // index of the block being filled
  uint32_t next_sequence = 0;
  int64_t processor = gst::kNoExternalId;  // the seed processor id last recorded
  LocationAnalysis analysis;               // on-the-fly critical path and compensation

  // Shared.
  std::atomic<uint32_t> current_shared{0};  // `current`, for close and the crash handler
  std::atomic<uint32_t> busy{0};    // owner is in its slow path (close waits for it)
  std::atomic<uint32_t> exited{0};  // owner thread has exited
  uint32_t id = 0;                  // stream id in the current trace
  uint32_t generation = 0;          // the Open() this stream was registered under
  pid_t tid = 0;
  uint32_t block_count = 0;
  gst::Record* memory = nullptr;
  WriterSlot writer;  // the owner's own block writes
  unsigned char* delta_scratch = nullptr;  // kDeltaScratchBytes, for the owner's own block writes
  Block blocks[kMaxBlocks];
};

// The stream of the calling thread; a permanently full dummy until the thread registers, so the
// hot path needs a single capacity check.
GS_HIDDEN extern constinit thread_local ThreadStream* t_stream __attribute__((tls_model("initial-exec")));
GS_HIDDEN extern constinit ThreadStream g_null_stream;

GS_HIDDEN extern ThreadStream* g_streams[kMaxStreams];
GS_HIDDEN extern std::atomic<uint32_t> g_stream_count;
// Blocks an owner had to write itself because its ring was full: the flusher is behind.
GS_HIDDEN extern std::atomic<uint64_t> g_owner_block_writes;

// Slow path of the hot path: makes room for `slots` records in the calling thread's stream
// (registering the thread, or publishing its block and moving on). Returns where to write, or
// null when events are not being recorded (the event is dropped).
gst::Record* AcquireSlow(uint32_t slots);

// Scratch for coding a block before it is written: the delta coding (gst_block_codec.h), then
// zstd on the coded block when `zstd` is set. A writer without one (the crash handler) writes raw.
struct BlockCoder {
  unsigned char* delta = nullptr;  // kDeltaScratchBytes
  void* zstd = nullptr;            // a zstd compression context, or null
  void* zstd_out = nullptr;
  size_t zstd_out_size = 0;
};
inline constexpr size_t kDeltaScratchBytes = gst::DeltaBlockBound(kBlockRecords);

// Writes one block as an event chunk through `slot`, coded with `coder` when given and the trace
// is compressed (Options::compress). The caller has moved it to kWriting. False when the write
// failed or was refused.
bool WriteBlock(const Block& block, WriterSlot& slot, bool in_crash_handler, const BlockCoder* coder);

// Writes a block the caller claimed (kWriting) outside the crash handler and releases it: kFree
// when written (or dropped and counted after a failed write), back to kFull when a crash refused
// the write, for the crash handler to write. False in that last case: the caller stops writing.
bool WriteClaimedBlock(Block& block, WriterSlot& slot, const BlockCoder* coder);

// At close: sends every owner into its slow path, waits for owners already in it, and writes
// everything recorded, including the blocks being filled.
void DrainStreamsForClose();
// At close, after the drain: folds every live location's on-the-fly state into the totals.
void FinishAnalysesForClose();
// In the crash handler: the same with only async-signal-safe calls and bounded waits. The block
// (done_stream, done_sequence) was already rewritten from the interrupted thread's writer slot.
void DrainStreamsForCrash(uint32_t done_stream, uint32_t done_sequence);

// Writes the LocationDef chunk of `stream` (with the thread's name). Definitions lock held.
void WriteLocationDef(const ThreadStream& stream, const char* name);

// Registers the pthread key whose destructor publishes an exiting thread's last block.
void InitThreadExitHook();

}  // namespace grainscope::record
