// The recording clock: the invariant TSC when the CPU and the kernel both vouch for it, else
// CLOCK_MONOTONIC. Raw values go into the trace; their conversion to nanoseconds comes from
// ClockSamples (simultaneous raw + CLOCK_MONOTONIC readings) written at start, during and at the
// end of the run, so the reader can fit the TSC rate over the whole run instead of trusting a
// start-up estimate.
#pragma once

#include <cstdint>
#include <ctime>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define GS_HAVE_TSC 1
#else
#define GS_HAVE_TSC 0
#endif

#include "format/gst/gst_format.h"
#include "record/visibility.h"

namespace grainscope::record {

// Chosen once by SelectClock() before any event is recorded; read on every event: whether the
// clock is the TSC, and how it is read. Ordered (GRAINSCOPE_CLOCK=tsc-ordered), each read waits until every
// instruction before it has executed. A plain rdtsc is not ordered with the program's work: an
// out-of-order processor executes it as soon as it reaches it, while earlier long-latency work
// is still in flight, so a region's end can be stamped before its work is done. On the machine
// of docs/recording.md ("Timestamps and out-of-order execution") a grain of 57 ns of dependent
// arithmetic is recorded as 23-29 ns that way; ordered, whole (78-83 ns, with part of the
// events around it). The price is the pipeline drain: 8-13 ns more per event there.
enum TscRead : uint8_t { kNoTsc = 0, kTscPlain = 1, kTscOrdered = 2 };
GS_HIDDEN extern uint8_t g_tsc_read;  // one byte, so that the hot path tests the choice once
inline bool ClockReadsTsc() { return g_tsc_read != kNoTsc; }

inline int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

#if GS_HAVE_TSC
template <bool kOrdered>
inline uint64_t ReadTsc() {
  if constexpr (kOrdered) _mm_lfence();  // every earlier instruction has executed
  return __rdtsc();
}
#endif

// One raw clock reading, ordered or not as chosen (see g_tsc_read).
inline uint64_t ReadClock() {
#if GS_HAVE_TSC
  if (g_tsc_read == kTscPlain) return ReadTsc<false>();
  if (g_tsc_read == kTscOrdered) return ReadTsc<true>();
#endif
  return static_cast<uint64_t>(MonotonicNs());
}

struct ClockChoice {
  bool tsc = false;
  bool ordered = false;  // tsc-ordered
  const char* reason = "";  // why this clock: for the trace's metadata ("clock_reason")
};

// Decides between the TSC and CLOCK_MONOTONIC: the TSC only when cpuid reports an invariant TSC
// (leaf 0x80000007, EDX bit 8: constant rate, runs in deep C-states) and the kernel uses it as its
// clock source (it would have switched away from an unreliable or unsynchronised TSC).
// `request` is GRAINSCOPE_CLOCK: "tsc", "tsc-ordered", "monotonic" or null for automatic (plain
// tsc when the TSC is usable). "tsc-ordered" is the TSC read with ordering, on the same
// conditions as automatic; "tsc" forces the TSC even when the kernel does not use it.
ClockChoice SelectClock(const char* request);

// A simultaneous reading of the raw clock and CLOCK_MONOTONIC: the tightest of a few tries, the
// raw value taken as the midpoint of two raw reads around the monotonic one.
gst::ClockSample SampleClock(double nominal_ticks_per_ns);

}  // namespace grainscope::record
