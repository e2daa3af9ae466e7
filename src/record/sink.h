// The trace file, written by several threads at once without a lock: each chunk's place in the
// file is reserved with one atomic add on the end offset and then filled with pwrite(2), so chunks
// never interleave and a writer never waits for another. Only async-signal-safe calls are used, so
// the fatal-signal handler writes through the same path.
//
// A writer announces a chunk in its WriterSlot before reserving space. The signal handler uses
// the slots to tell whether another thread is in the middle of a write (it waits for it) or
// whether the interrupted thread itself was (it completes that write from the slot: the reserved
// range would otherwise stay a hole of zeros in the middle of the file).
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>

#include "format/gst/gst_format.h"
#include "record/visibility.h"

namespace grainscope::record {

struct WriterSlot {
  enum Phase : uint32_t { kIdle = 0, kAnnounced = 1, kReserved = 2 };
  std::atomic<uint32_t> phase{kIdle};
  std::atomic<pid_t> tid{0};  // read by the crash handler while other threads write
  uint64_t offset = 0;
  gst::ChunkHeader header{};
  const void* payload = nullptr;
};

pid_t CurrentTid();

class Sink {
 public:
  // Creates (truncates) `path` and writes the file header. Returns false with errno set.
  bool Open(const char* path);
  // Closes the file; chunks written concurrently with Close are lost.
  void Close();
  bool is_open() const { return fd_ >= 0; }

  // Appends one chunk, with the header's checksums filled in (gst::SealChunkHeader). False when the write failed (the sink then stops writing and says so once
  // on stderr, outside signal handlers) or, outside the crash handler, when a crash is being
  // handled. `slot` belongs to the calling thread (or is guarded by a lock the caller holds).
  bool Write(WriterSlot& slot, const gst::ChunkHeader& header, const void* payload, bool in_crash_handler);

  // For the crash handler: rewrites the chunk of a slot interrupted after its reservation.
  void Complete(const WriterSlot& slot);

  bool failed() const { return failed_.load(std::memory_order_relaxed); }
  uint64_t bytes_written() const { return end_.load(std::memory_order_relaxed); }

 private:
  bool WriteAt(const void* data, size_t size, uint64_t offset);

  int fd_ = -1;
  std::atomic<uint64_t> end_{0};
  std::atomic<bool> failed_{false};
  std::atomic<bool> reported_{false};
};

// Set first thing by the crash handler; writers outside it stop starting new chunks.
GS_HIDDEN extern std::atomic<bool> g_crashing;

}  // namespace grainscope::record
