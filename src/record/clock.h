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

// Chosen once by SelectClock() before any event is recorded; read on every event.
GS_HIDDEN extern bool g_clock_is_tsc;

inline int64_t MonotonicNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

// One raw clock reading. Plain rdtsc, not rdtscp or lfence+rdtsc: an event's timestamp may move
// by a few instructions, which is far below what the analyses resolve, and the serialising forms
// cost 50 % more on the machines we measured.
inline uint64_t ReadClock() {
#if GS_HAVE_TSC
  if (g_clock_is_tsc) return __rdtsc();
#endif
  return static_cast<uint64_t>(MonotonicNs());
}

struct ClockChoice {
  bool tsc = false;
  const char* reason = "";  // why this clock: for the trace's metadata ("clock_reason")
};

// Decides between the TSC and CLOCK_MONOTONIC: the TSC only when cpuid reports an invariant TSC
// (leaf 0x80000007, EDX bit 8: constant rate, runs in deep C-states) and the kernel uses it as its
// clock source (it would have switched away from an unreliable or unsynchronised TSC).
// `request` is GRAINSCOPE_CLOCK: "tsc", "monotonic" or null for automatic.
ClockChoice SelectClock(const char* request);

// A simultaneous reading of the raw clock and CLOCK_MONOTONIC: the tightest of a few tries, the
// raw value taken as the midpoint of two raw reads around the monotonic one.
gst::ClockSample SampleClock(double nominal_ticks_per_ns);

}  // namespace grainscope::record
