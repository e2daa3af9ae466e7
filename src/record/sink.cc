#include "record/sink.h"

#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace grainscope::record {

std::atomic<bool> g_crashing{false};

pid_t CurrentTid() { return static_cast<pid_t>(syscall(SYS_gettid)); }

namespace {

// An existing file the recorder may replace: an earlier grainscope trace (the .gst magic) or an
// empty file. Anything else is a user's data.
bool Replaceable(const char* path) {
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  unsigned char head[sizeof gst::kMagic] = {};
  const ssize_t n = read(fd, head, sizeof head);
  close(fd);
  return n == 0 || (n == static_cast<ssize_t>(sizeof head) && std::memcmp(head, gst::kMagic, sizeof head) == 0);
}

}  // namespace

bool Sink::Open(const char* path) {
  fd_ = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ < 0 && errno == EEXIST) {
    if (!Replaceable(path)) {
      errno = EEXIST;
      return false;
    }
    fd_ = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
  }
  if (fd_ < 0) return false;
  const gst::FileHeader h = gst::CurrentFileHeader();
  end_.store(sizeof h);
  failed_.store(false);
  reported_.store(false);
  if (!WriteAt(&h, sizeof h, 0)) {
    const int saved = errno;
    close(fd_);
    fd_ = -1;
    errno = saved;
    return false;
  }
  return true;
}

void Sink::Close() {
  if (fd_ >= 0) close(fd_);
  fd_ = -1;
}

bool Sink::WriteAt(const void* data, size_t size, uint64_t offset) {
  const auto* p = static_cast<const char*>(data);
  while (size > 0) {
    ssize_t n = pwrite(fd_, p, size, static_cast<off_t>(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= static_cast<size_t>(n);
    offset += static_cast<uint64_t>(n);
  }
  return true;
}

bool Sink::Write(WriterSlot& slot, const gst::ChunkHeader& unsealed, const void* payload,
                 bool in_crash_handler) {
  if (fd_ < 0 || failed_.load(std::memory_order_relaxed)) return false;
  // Checksums first, outside the window in which the crash handler may wait for this writer.
  gst::ChunkHeader header = unsealed;
  gst::SealChunkHeader(header, payload);
  slot.tid.store(CurrentTid(), std::memory_order_relaxed);
  // Announce before looking at g_crashing (both sequentially consistent): either the crash
  // handler sees this slot busy and waits, or this writer sees the crash and backs off.
  slot.phase.store(WriterSlot::kAnnounced, std::memory_order_seq_cst);
  if (!in_crash_handler && g_crashing.load(std::memory_order_seq_cst)) {
    slot.phase.store(WriterSlot::kIdle, std::memory_order_release);
    return false;
  }
  const uint64_t size = sizeof header + header.stored_size;
  slot.offset = end_.fetch_add(size, std::memory_order_relaxed);
  slot.header = header;
  slot.payload = payload;
  slot.phase.store(WriterSlot::kReserved, std::memory_order_release);
  bool ok = WriteAt(&header, sizeof header, slot.offset) &&
            WriteAt(payload, header.stored_size, slot.offset + sizeof header);
  slot.phase.store(WriterSlot::kIdle, std::memory_order_release);
  if (!ok) {
    failed_.store(true, std::memory_order_relaxed);
    if (!in_crash_handler && !reported_.exchange(true)) {
      std::fprintf(stderr, "grainscope: writing the trace failed (%s); recording stops, the trace "
                   "will count the lost events as dropped\n", std::strerror(errno));
    }
  }
  return ok;
}

void Sink::Complete(const WriterSlot& slot) {
  if (fd_ < 0 || slot.phase.load(std::memory_order_acquire) != WriterSlot::kReserved) return;
  WriteAt(&slot.header, sizeof slot.header, slot.offset);
  WriteAt(slot.payload, slot.header.stored_size, slot.offset + sizeof slot.header);
}

}  // namespace grainscope::record
