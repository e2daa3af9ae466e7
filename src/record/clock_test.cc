// The ordered TSC (GRAINSCOPE_CLOCK=tsc-ordered): named in the trace, calibrated by the distance
// from a region's end to the next begin, and stamping a tiny grain's end after its work is done.
#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "grainscope/trace.h"
#include "record/test_util.h"

namespace grainscope::record {
namespace {

GS_DEFINE_REGION(g_tiny, "tiny");

// 24 steps of dependent arithmetic (50-100 ns), out of line: the grain a plain rdtsc runs ahead
// of (docs/recording.md, "Timestamps and out-of-order execution").
__attribute__((noinline)) double Arithmetic(double v) {
  for (int i = 0; i < 24; ++i) {
    v = v * 1.0000001 + 0.5;
    asm volatile("" : "+x"(v));
  }
  return v;
}

// Opens a trace with the ordered TSC; false (and the test skips) where the TSC is not usable.
bool OpenOrdered(const std::string& path) {
  Options o = TestOptions(path);
  o.clock = "tsc-ordered";
  return Open(o) && ClockIsTsc();
}

TEST(RecordClock, OrderedTscIsNamedAndCalibratedByEndToBeginDistance) {
  ScratchDir dir;
  const std::string path = dir.File("ordered.gst");
  if (!OpenOrdered(path)) {
    Close();
    GTEST_SKIP() << "the TSC is not usable on this machine";
  }
  EXPECT_STREQ(ClockName(), "tsc-ordered");
  gs_region_begin(&g_tiny);
  gs_region_end(&g_tiny);
  Close();
  Trace t = MustRead(path);
  EXPECT_EQ(t.Metadata("clock"), "tsc-ordered");
  EXPECT_NE(t.Metadata("overhead_calibration").find("from a region's end to the next begin"), std::string_view::npos)
      << t.Metadata("overhead_calibration");
  EXPECT_GT(std::stod(std::string(t.Metadata("overhead_per_event_ns"))), 0.0);
  ASSERT_EQ(t.events(LocationId(0)).size(), 2u);
}

TEST(RecordClock, OrderedTscStampsATinyGrainsEndAfterItsWork) {
  constexpr int kGrains = 4000;
  ScratchDir dir;
  const std::string path = dir.File("grains.gst");
  if (!OpenOrdered(path)) {
    Close();
    GTEST_SKIP() << "the TSC is not usable on this machine";
  }
  double v = 1;
  // The grain's own length: the same calls without events, in batches of 100, the median batch
  // (a batch that lost the processor would make a mean too long and the check too lax or flaky).
  std::vector<double> batches;
  for (int b = 0; b < kGrains / 100; ++b) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 100; ++i) v = Arithmetic(v);
    batches.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / 100);
  }
  std::nth_element(batches.begin(), batches.begin() + batches.size() / 2, batches.end());
  const double bare_ns = batches[batches.size() / 2];
  for (int i = 0; i < kGrains; ++i) {
    gs_region_begin(&g_tiny);
    v = Arithmetic(v);
    gs_region_end(&g_tiny);
  }
  Close();
  EXPECT_GT(v, 0.0);
  Trace t = MustRead(path);
  const EventColumns& ev = t.events(LocationId(0));
  ASSERT_EQ(ev.size(), 2u * kGrains);
  std::vector<TimeNs> recorded;
  for (EventIndex i = 0; i + 1 < ev.size(); i += 2) recorded.push_back(ev.time[i + 1] - ev.time[i]);
  std::nth_element(recorded.begin(), recorded.begin() + kGrains / 2, recorded.end());
  const double median = static_cast<double>(recorded[kGrains / 2]);
  // Ordered, a grain's begin-to-end is its work plus part of the events around it; a plain rdtsc
  // stamped these grains at about half their length on the machine of the docs.
  EXPECT_GE(median, 0.8 * bare_ns) << "recorded median " << median << " ns, bare " << bare_ns << " ns";
}

}  // namespace
}  // namespace grainscope::record
