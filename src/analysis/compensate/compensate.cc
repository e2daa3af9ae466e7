#include "analysis/compensate/compensate.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "base/numbers.h"

namespace grainscope {
namespace {

// Inclusive time per region, measured and compensated, from one pass over each location.
std::vector<RegionCompensation> RegionTimes(const Trace& t, const std::vector<TimeNs>& times) {
  std::vector<RegionCompensation> out(t.regions().size());
  for (uint32_t r = 0; r < out.size(); ++r) out[r].region = RegionId(r);
  std::vector<EventIndex> open;
  size_t base = 0;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    open.clear();
    for (EventIndex i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] == EventKind::kEnter) open.push_back(i);
      if (ev.kind[i] != EventKind::kLeave) continue;
      const EventIndex enter = open.back();
      open.pop_back();
      RegionCompensation& rc = out[ev.arg[i]];
      rc.instances++;
      rc.measured_ns += ev.time[i] - ev.time[enter];
      rc.compensated_ns += times[base + i] - times[base + enter];
    }
    base += ev.size();
  }
  std::erase_if(out, [](const RegionCompensation& r) { return r.instances == 0; });
  std::stable_sort(out.begin(), out.end(), [](const RegionCompensation& a, const RegionCompensation& b) {
    return a.measured_ns > b.measured_ns;
  });
  return out;
}

// A trace recorded with the plain TSC stamps a grain's end while its work may still be in flight
// (docs/recording.md, "Timestamps and out-of-order execution"): grains under about a microsecond
// are recorded short, by up to the whole grain, and their compensated times with them. Names the
// shortest such region that occurs often enough to matter.
constexpr TimeNs kShortGrainNs = 1000;
constexpr uint64_t kManyInstances = 100;

std::optional<std::string> PlainTscNote(const Trace& t, const std::vector<RegionCompensation>& regions) {
  if (t.Metadata("clock") != "tsc") return std::nullopt;
  const RegionCompensation* shortest = nullptr;
  for (const RegionCompensation& r : regions) {
    if (r.instances < kManyInstances || r.measured_ns >= kShortGrainNs * static_cast<TimeNs>(r.instances)) continue;
    if (shortest == nullptr || r.measured_ns * static_cast<TimeNs>(shortest->instances) <
                                   shortest->measured_ns * static_cast<TimeNs>(r.instances))
      shortest = &r;
  }
  if (shortest == nullptr) return std::nullopt;
  return fmt::format(
      "region '{}' lasts {} ns on average: with the plain TSC (clock 'tsc') regions under about 1 us may be "
      "recorded short, their ends stamped while their work is still in flight; record with "
      "GRAINSCOPE_CLOCK=tsc-ordered for exact times of tiny grains",
      t.str(t.region(shortest->region).name), shortest->measured_ns / static_cast<TimeNs>(shortest->instances));
}

}  // namespace

Result<Compensation> Compensate(const Trace& t, const CompensateOptions& o) {
  Compensation c;
  if (o.overhead_per_event_ns) {
    c.overhead_per_event_ns = *o.overhead_per_event_ns;
    c.overhead_source = "--overhead";
  } else {
    const std::string_view value = t.Metadata(kOverheadMetadataKey);
    // The recorder writes a decimal ("12.34"), read exactly to 1/1000 ns (the on-the-fly
    // compensation in src/record/onthefly.cc uses the same value).
    const std::optional<double> parsed = ParseMilliDecimal(value);
    if (value.empty() || !parsed) {
      return FailedPrecondition(fmt::format(
          "the trace has no calibrated per-event overhead (metadata '{}'{}); give one with --overhead NS",
          kOverheadMetadataKey, value.empty() ? "" : fmt::format(" is '{}'", value)));
    }
    c.overhead_per_event_ns = *parsed;
    c.overhead_source = "trace calibration";
  }
  WhatIf w;
  w.overhead_per_event_ns = c.overhead_per_event_ns;
  GS_ASSIGN_OR_RETURN(ReplayResult r, Replay(t, w, /*check_identity=*/false));
  c.measured_ns = r.measured_ns;
  c.compensated_ns = r.predicted_ns;
  c.locations = std::move(r.locations);
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    if (ev.size() == 0) continue;
    const TimeNs span = ev.time.back() - t.start_ns();
    const auto overhead = static_cast<TimeNs>(std::llround(static_cast<double>(ev.size()) * c.overhead_per_event_ns));
    c.naive_ns = std::max(c.naive_ns, span - overhead);
  }
  c.regions = RegionTimes(t, r.times);
  if (std::optional<std::string> note = PlainTscNote(t, c.regions)) c.notes.push_back(std::move(*note));
  c.times = std::move(r.times);
  return c;
}

}  // namespace grainscope
