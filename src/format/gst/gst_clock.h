// How the .gst reader turns the raw clock values of records into ns since the first clock sample,
// internal to format/gst.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/status.h"
#include "format/gst/gst_format.h"
#include "format/limits.h"
#include "model/trace.h"

namespace grainscope::gst_reader {

using gst::ClockSample;

// Raw clock values to ns since the first clock sample: the line through the first sample and the
// sample furthest from it in raw value (a fit over the whole run), or the first sample's nominal
// rate when the run was too short (< 1 ms) or the samples are missing.
class ClockConverter {
 public:
  static Result<ClockConverter> Make(const std::vector<ClockSample>& samples, std::string_view file) {
    if (samples.empty()) {
      return DataLoss(fmt::format("{}: no clock chunk: the raw timestamps cannot be converted to time (the "
                                  "runtime writes one before any event)", file));
    }
    ClockConverter c;
    c.first_ = samples.front();
    c.tsc_ = c.first_.clock == gst::kClockTsc;
    const ClockSample* last = &samples.front();
    for (const ClockSample& s : samples) {
      // Keeps every difference of readings representable (found by fuzz_gst: a hostile sample
      // made span_ns overflow).
      if (s.monotonic_ns < 0 || s.monotonic_ns > limits::kMaxTimeNs) {
        return DataLoss(fmt::format("{}: clock sample {}: CLOCK_MONOTONIC reading {} ns is outside the limits 0 .. kMaxTimeNs = {}",
                                    file, &s - samples.data(), s.monotonic_ns, limits::kMaxTimeNs));
      }
      if (s.clock != c.first_.clock)
        return DataLoss(fmt::format("{}: clock samples disagree about the clock kind ({} and {})", file, c.first_.clock, s.clock));
      if (s.raw > last->raw) last = &s;
    }
    if (!c.tsc_) return c;
    const int64_t span_ns = last->monotonic_ns - c.first_.monotonic_ns;
    if (span_ns >= 1'000'000 && last->raw > c.first_.raw) {
      c.fit_ = true;
      c.span_raw_ = last->raw - c.first_.raw;
      c.span_ns_ = span_ns;
      c.ticks_per_ns_ = static_cast<double>(c.span_raw_) / static_cast<double>(span_ns);
    } else {
      c.ticks_per_ns_ = c.first_.nominal_ticks_per_ns;
      if (!(c.ticks_per_ns_ > 0) || !std::isfinite(c.ticks_per_ns_))
        return DataLoss(fmt::format("{}: the clock sample has no usable TSC rate ({})", file, c.ticks_per_ns_));
    }
    return c;
  }

  // Saturates at +-INT64_MAX, which the caller rejects as beyond kMaxTimeNs.
  TimeNs ToNs(uint64_t raw) const {
    const auto delta = static_cast<int64_t>(raw - first_.raw);
    if (!tsc_) return delta;
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (fit_) {
      const __int128 ns = static_cast<__int128>(delta) * span_ns_ / static_cast<__int128>(span_raw_);
      return ns > kMax ? kMax : ns < -kMax ? -kMax : static_cast<TimeNs>(ns);
    }
    const double ns = static_cast<double>(delta) / ticks_per_ns_;
    if (!(std::fabs(ns) < 9e18)) return ns > 0 ? kMax : -kMax;
    return static_cast<TimeNs>(std::llround(ns));
  }

  bool tsc() const { return tsc_; }
  double ticks_per_ns() const { return ticks_per_ns_; }

 private:
  ClockSample first_{};
  bool tsc_ = false;
  bool fit_ = false;
  uint64_t span_raw_ = 1;
  int64_t span_ns_ = 1;
  double ticks_per_ns_ = 1.0;
};

}  // namespace grainscope::gst_reader
