// The flusher: a background thread that writes (and compresses) the blocks the recording threads
// publish, and samples the clock now and then for the TSC calibration. It sleeps on a futex and
// is woken when a block is published, so an idle program costs nothing.
#pragma once

#include <cstddef>

namespace grainscope::record {

bool StartFlusher();  // false when the thread cannot be created (owners then write their blocks)
void StopFlusher();   // writes what is published, then joins
void WakeFlusher();   // after publishing a block; a system call only when the flusher sleeps
bool FlusherRunning();

struct WriterSlot;
WriterSlot& FlusherSlot();  // for the crash handler

// zstd compression of one block into `out` (capacity `out_size`); returns the compressed size,
// or 0 when compression failed or did not pay.
size_t CompressBlock(void* context, const void* in, size_t in_size, void* out, size_t out_size);
size_t CompressBound(size_t in_size);
void* NewCompressionContext();
void FreeCompressionContext(void* context);

}  // namespace grainscope::record
