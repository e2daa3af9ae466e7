// Running independent tasks on a few threads: the parts of a multi-file trace (one rank file, one
// rank's JSON document) are read one per task, and the per-location parts of assembling and
// analysing a trace run one location per task. Each task writes only its own result slot, so the
// results are the same, byte for byte, whatever the number of threads; the caller merges them in
// index order afterwards.
#pragma once

#include <cstddef>
#include <functional>

namespace grainscope {

// How many threads reading and analysing may use: `requested` when it is not 0, else what
// SetThreads set (the command line's --threads), else GRAINSCOPE_THREADS from the environment when
// it holds a positive number, else the machine's hardware threads; at most kMaxThreads.
inline constexpr unsigned kMaxThreads = 64;
unsigned Threads(unsigned requested = 0);
// The process's choice (the CLI's --threads); 0 clears it.
void SetThreads(unsigned n);

// task(i) for i = 0 .. n-1 on min(threads, n) threads (the calling thread is one of them), each
// index once, in no fixed order; returns when all have run. threads <= 1 runs them in index order
// on the calling thread. While a task runs, its own progress reports (Advance, SetBase: a reader's
// offsets within its file) are muted, since several files' offsets would mix; a task reports
// that it finished with progress::AddDone (base/progress.h). A ParallelFor inside a task runs on
// that task's thread alone.
void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& task);

}  // namespace grainscope
