#include "record/clock.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstring>

#if GS_HAVE_TSC
#include <cpuid.h>
#endif

namespace grainscope::record {

uint8_t g_tsc_read = kNoTsc;

namespace {

// True when /sys/devices/system/clocksource/clocksource0/current_clocksource says "tsc".
bool KernelUsesTsc() {
  int fd = open("/sys/devices/system/clocksource/clocksource0/current_clocksource", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  char buf[32] = {};
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return false;
  return std::strncmp(buf, "tsc", 3) == 0 && (buf[3] == '\n' || buf[3] == '\0');
}

bool CpuHasInvariantTsc() {
#if GS_HAVE_TSC
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid_max(0x80000000u, nullptr) < 0x80000007u) return false;
  __cpuid(0x80000007u, eax, ebx, ecx, edx);
  return (edx & (1u << 8)) != 0;
#else
  return false;
#endif
}

}  // namespace

ClockChoice SelectClock(const char* request) {
  ClockChoice c;
  const bool forced_tsc = request != nullptr && std::strcmp(request, "tsc") == 0;
  const bool ordered = request != nullptr && std::strcmp(request, "tsc-ordered") == 0;
  if (request != nullptr && std::strcmp(request, "monotonic") == 0) {
    c.reason = "GRAINSCOPE_CLOCK=monotonic";
  } else if (!CpuHasInvariantTsc()) {
    c.reason = "the CPU does not report an invariant TSC";
  } else if (!KernelUsesTsc() && !forced_tsc) {
    c.reason = "the kernel's clock source is not the TSC";
  } else {
    c.tsc = true;
    c.ordered = ordered;
    c.reason = forced_tsc ? "GRAINSCOPE_CLOCK=tsc"
               : ordered  ? "GRAINSCOPE_CLOCK=tsc-ordered: invariant TSC, used by the kernel as its clock source"
                          : "invariant TSC, used by the kernel as its clock source";
  }
  g_tsc_read = !c.tsc ? kNoTsc : c.ordered ? kTscOrdered : kTscPlain;
  return c;
}

gst::ClockSample SampleClock(double nominal_ticks_per_ns) {
  gst::ClockSample best{};
  best.clock = ClockReadsTsc() ? gst::kClockTsc : gst::kClockMonotonic;
  best.nominal_ticks_per_ns = ClockReadsTsc() ? nominal_ticks_per_ns : 1.0;
  if (!ClockReadsTsc()) {
    const int64_t now = MonotonicNs();
    best.raw = static_cast<uint64_t>(now);
    best.monotonic_ns = now;
    return best;
  }
  uint64_t best_width = UINT64_MAX;
  for (int attempt = 0; attempt < 5; ++attempt) {
    const uint64_t before = ReadClock();
    const int64_t mono = MonotonicNs();
    const uint64_t after = ReadClock();
    if (after - before < best_width) {
      best_width = after - before;
      best.raw = before + (after - before) / 2;
      best.monotonic_ns = mono;
    }
  }
  return best;
}

}  // namespace grainscope::record
