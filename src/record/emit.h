// The hot path: append one record (plus continuation slots) to the calling thread's stream.
//
// Cost: one TLS load, two loads and a compare, the clock read, two or four 8-byte stores and a
// release store of the new end (a plain store on x86). No lock, no allocation, no system call;
// the slow path is taken once per block (4096 slots) or when nothing is being recorded.
//
// Begin-type events read the clock as late as possible and end-type events as early as possible,
// so the instrumentation's own cost falls outside the measured regions.
#pragma once

#include <cstdint>
#include <cstring>

#include "format/gst/gst_format.h"
#include "record/clock.h"
#include "record/runtime.h"
#include "record/stream.h"
#include "record/visibility.h"

namespace grainscope::record {

enum class ClockAt { kFirst, kLast };

// Room for `slots` records in the calling thread's stream: the address to write to, or null.
GS_ALWAYS_INLINE gst::Record* Reserve(uint32_t slots) {
  ThreadStream* s = t_stream;
  gst::Record* p = s->cur.load(std::memory_order_relaxed);
  const auto room = static_cast<intptr_t>(reinterpret_cast<uintptr_t>(s->end.load(std::memory_order_relaxed)) -
                                          reinterpret_cast<uintptr_t>(p));
  if (GS_LIKELY(room >= static_cast<intptr_t>(slots * sizeof(gst::Record)))) return p;
  return AcquireSlow(slots);
}

// Makes records [.., p + slots) visible to the flusher, close and the signal handler.
GS_ALWAYS_INLINE void Commit(gst::Record* p, uint32_t slots) {
  t_stream->cur.store(p + slots, std::memory_order_release);
}

GS_ALWAYS_INLINE void StoreRecord(gst::Record* p, uint64_t time, uint64_t kind_id) {
  // Two 8-byte stores; the layout is gst::Record's.
  std::memcpy(reinterpret_cast<char*>(p), &time, 8);
  std::memcpy(reinterpret_cast<char*>(p) + 8, &kind_id, 8);
}

// A two-slot message record: the event, then its gst::MessageSlot (bytes, peer, grain).
GS_ALWAYS_INLINE void StoreMessageRecord(gst::Record* p, uint64_t time, uint8_t kind, uint32_t name,
                                         uint64_t bytes, int32_t peer, uint32_t grain) {
  StoreRecord(p, time, gst::PackKindId(kind, 1, name));
  const uint64_t peer_grain = uint64_t{static_cast<uint32_t>(peer)} | (uint64_t{grain} << 32);
  std::memcpy(reinterpret_cast<char*>(p + 1), &bytes, 8);
  std::memcpy(reinterpret_cast<char*>(p + 1) + 8, &peer_grain, 8);
}

// The one-slot event when the fast path below cannot take it: the clock is not the TSC, or the
// block is full (or the thread has no stream yet). `kind_id` is the record's second half
// (gst::PackKindId, gst::PackGrain). `time` is the TSC value a clock-first event has already
// read, 0 when the clock is still to be read. Out of line, so that the fast path is a leaf: no
// stack frame, no saved registers, its only exits a return or a tail call to here.
GS_NOINLINE inline void EmitSlow(uint64_t kind_id, bool clock_first, uint64_t time) {
  if (clock_first && time == 0) time = ReadClock();
  gst::Record* p = Reserve(1);
  if (GS_UNLIKELY(p == nullptr)) return;
  if (!clock_first) time = ReadClock();
  StoreRecord(p, time, kind_id);
  Commit(p, 1);
}

#if GS_HAVE_TSC
// The fast path with the TSC, ordered or not; the slow path when the block is full (or closed).
template <ClockAt kAt, bool kOrdered>
GS_ALWAYS_INLINE void EmitTsc(uint64_t kind_id) {
  constexpr bool kClockFirst = kAt == ClockAt::kFirst;
  ThreadStream* s = t_stream;
  uint64_t t = 0;
  if constexpr (kClockFirst) t = ReadTsc<kOrdered>();
  gst::Record* p = s->cur.load(std::memory_order_relaxed);
  // Signed: close and the crash handler set `end` to null under the owner (room < 0).
  const auto room = static_cast<intptr_t>(reinterpret_cast<uintptr_t>(s->end.load(std::memory_order_relaxed)) -
                                          reinterpret_cast<uintptr_t>(p));
  if (GS_LIKELY(room >= static_cast<intptr_t>(sizeof(gst::Record)))) {
    if constexpr (!kClockFirst) t = ReadTsc<kOrdered>();
    StoreRecord(p, t, kind_id);
    s->cur.store(p + 1, std::memory_order_release);
    return;
  }
  return EmitSlow(kind_id, kClockFirst, t);
}
#endif

// One one-slot record whose second half is `kind_id`.
template <ClockAt kAt>
GS_ALWAYS_INLINE void EmitRecord(uint64_t kind_id) {
#if GS_HAVE_TSC
  // The plain TSC first: one test on the default path, as before the ordered form existed.
  const uint8_t read = g_tsc_read;
  if (GS_LIKELY(read == kTscPlain)) return EmitTsc<kAt, false>(kind_id);
  if (read == kTscOrdered) return EmitTsc<kAt, true>(kind_id);
#endif
  EmitSlow(kind_id, kAt == ClockAt::kFirst, 0);
}

template <ClockAt kAt>
GS_ALWAYS_INLINE void Emit(uint8_t kind, uint32_t id) {
  EmitRecord<kAt>(gst::PackKindId(kind, 0, id));
}

// Records that the calling thread runs as seed processor `id` from now on, once per change (a
// stream of an earlier trace does not count: the new trace must say it again).
GS_ALWAYS_INLINE void RecordProcessor(int32_t id) {
  if (t_stream != &g_null_stream && t_stream->processor == id &&
      t_stream->generation == g_generation.load(std::memory_order_relaxed))
    return;
  gst::Record* p = Reserve(1);
  if (p == nullptr) return;
  StoreRecord(p, ReadClock(), gst::PackKindId(gst::kRecordProcessor, 0, static_cast<uint32_t>(id)));
  Commit(p, 1);
  AnalysisSkipRecord(t_stream->analysis, p);
  t_stream->processor = id;
}

}  // namespace grainscope::record
