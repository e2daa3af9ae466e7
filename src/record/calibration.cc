#include "record/calibration.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>

#include "grainscope/trace.h"
#include "record/clock.h"
#include "record/stream.h"
#include "record/visibility.h"

namespace grainscope::record {
namespace {

// What is timed: a loop of tiny grains, each a short out-of-line piece of dependent arithmetic,
// once bare and once with a begin/end pair of a registered region around every grain (the public
// API, into a scratch buffer of one real 4096-record block). The difference per event is what an
// event adds to code that does something between events, which is every program: back-to-back
// null events overlap one another's stores and clock reads in the processor and cost a different
// amount (about 10 % more on the machine of docs/compensation.md), and a program never records
// them.
//
// With the ordered clock (GRAINSCOPE_CLOCK=tsc-ordered) the estimate is different: the median
// distance in the loop's own records from a region's end to the next one's begin. Each read
// waits for the work before it, so the end-to-begin distance is exactly what one event and the
// loop around it add (the loop's own instructions, hidden under the arithmetic without events,
// cannot overlap a fenced read); the difference of the two loops came out 10 % lower than what
// the validation program paid (docs/compensation.md). With the plain TSC that distance means
// nothing: the reads run ahead of the arithmetic.
//
// How it is summarised: the fastest of kRuns runs in each group (that rejects interrupts and
// cold caches, TAU's minimum), then the median over kGroups groups taken one after another. On a
// virtual machine the processor's speed changes within milliseconds (one rdtsc: 25 ticks, then
// 32, then 25); the minimum over everything would pick the machine's best moment, the median of
// the groups picks its usual one, which is the one the program will mostly run in.
constexpr int kPairs = kBlockRecords / 4;
constexpr int kRuns = 3;
constexpr int kGroups = 7;
constexpr int kWorkSteps = 12;  // ~25 ns of arithmetic: a tiny grain

// Out of line and opaque, so the loops with and without events run the same machine code for it.
GS_NOINLINE double TinyGrain(double v) {
  for (int i = 0; i < kWorkSteps; ++i) {
    v = v * 1.0000001 + 0.5;
    asm volatile("" : "+x"(v));
  }
  return v;
}

// One run: ticks of the bare loop and of the instrumented loop, and with the ordered clock the
// median distance from one region's end to the next one's begin in the instrumented loop's own
// records (0 otherwise: unused).
struct RunTicks {
  uint64_t bare, instrumented, gap;
};

uint64_t MedianEndToBegin(const gst::Record* records) {
  uint64_t gaps[kPairs - 1];
  for (int i = 0; i + 1 < kPairs; ++i) gaps[i] = records[2 * i + 2].time - records[2 * i + 1].time;
  std::nth_element(gaps, gaps + (kPairs - 1) / 2, gaps + kPairs - 1);
  return gaps[(kPairs - 1) / 2];
}

RunTicks TimeRun(ThreadStream& scratch, gst::Record* records, gs_region* probe, double& v) {
  scratch.cur.store(records, std::memory_order_relaxed);
  scratch.end.store(records + 2 * kPairs, std::memory_order_relaxed);
  const uint64_t t0 = ReadClock();
  for (int i = 0; i < kPairs; ++i) v = TinyGrain(v);
  const uint64_t t1 = ReadClock();
  for (int i = 0; i < kPairs; ++i) {
    gs_region_begin(probe);
    v = TinyGrain(v);
    gs_region_end(probe);
  }
  const uint64_t t2 = ReadClock();
  return {t1 - t0, t2 - t1, g_tsc_read == kTscOrdered ? MedianEndToBegin(records) : 0};
}

}  // namespace

double CalibrateOverheadTicks() {
  static ThreadStream scratch;  // only the calling thread touches it, only here
  static gst::Record records[2 * kPairs];
  static gs_region probe = {"calibration", "", 0, GS_ROLE_OTHER, GS_NO_EXTERNAL_ID, UINT32_MAX};
  ThreadStream* saved = t_stream;
  t_stream = &scratch;
  double v = 1;
  double per_group[kGroups];
  for (int g = 0; g < kGroups; ++g) {
    uint64_t bare = UINT64_MAX, instrumented = UINT64_MAX, gap = UINT64_MAX;
    for (int r = 0; r < kRuns; ++r) {
      const RunTicks t = TimeRun(scratch, records, &probe, v);
      bare = std::min(bare, t.bare);
      instrumented = std::min(instrumented, t.instrumented);
      gap = std::min(gap, t.gap);
    }
    if (g_tsc_read == kTscOrdered) {
      per_group[g] = static_cast<double>(gap);
    } else {
      const double extra = instrumented > bare ? static_cast<double>(instrumented - bare) : 0.0;
      per_group[g] = extra / (2.0 * kPairs);
    }
  }
  t_stream = saved;
  asm volatile("" : : "x"(v));
  std::sort(per_group, per_group + kGroups);
  return per_group[kGroups / 2];
}

void DescribeCalibration(char* out, size_t size) {
  if (g_tsc_read == kTscOrdered) {
    std::snprintf(out, size,
                  "median of %d groups of the fastest of %d runs: %d tiny grains each inside a begin/end pair "
                  "through the API into a %u-record block, median ordered-clock distance from a region's end "
                  "to the next begin",
                  kGroups, kRuns, kPairs, kBlockRecords);
    return;
  }
  std::snprintf(out, size,
                "median of %d groups of the fastest of %d runs: %d tiny grains bare vs. each inside a "
                "begin/end pair through the API into a %u-record block, difference per event",
                kGroups, kRuns, kPairs, kBlockRecords);
}

}  // namespace grainscope::record
