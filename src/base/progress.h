// How far the current long step (reading a trace, an analysis) has got, for the CLI's progress
// bar (cli/progress.h). Readers and the CLI report at coarse grain (per block, per 64 Ki lines,
// per location), never per event: a relaxed atomic store each time. Nothing is printed here.
#pragma once

#include <cstdint>

namespace grainscope::progress {

// Starts a step named `phase` (a string literal: it is kept by pointer) of `total` units (bytes,
// locations, ...); 0 when the amount of work is not known in advance.
void Begin(const char* phase, uint64_t total);
// `done` units of the current step are finished (a smaller value than before is ignored).
void Advance(uint64_t done);
// From now on Advance(done) means base + done: a reader of several files reports each file's
// offsets on top of the files before it. Begin resets it to 0.
void SetBase(uint64_t base);
// `units` more of the current step are finished: for steps whose parts finish in no fixed order
// (base/parallel.h), each adds its own when it is done. Not muted.
void AddDone(uint64_t units);

// While one lives, Begin, Advance and SetBase called on this thread are ignored: a task run beside
// others (ParallelFor) must not move the bar by its own file's offsets.
class MuteThisThread {
 public:
  MuteThisThread();
  ~MuteThisThread();
  MuteThisThread(const MuteThisThread&) = delete;
  MuteThisThread& operator=(const MuteThisThread&) = delete;

 private:
  bool was_muted_;
};

struct Snapshot {
  const char* phase = nullptr;  // null: no step has begun
  uint64_t done = 0;
  uint64_t total = 0;
};
Snapshot Read();

}  // namespace grainscope::progress
