#include "analysis/compensate/compensate.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "analysis/accuracy/short_grains.h"
#include "base/numbers.h"
#include "model/trace_index.h"

namespace grainscope {
namespace {

// Inclusive time per region, measured and compensated, from one pass over each location.
std::vector<RegionCompensation> RegionTimes(const Trace& t, const Timeline& compensated) {
  std::vector<RegionCompensation> out(t.regions().size());
  for (uint32_t r = 0; r < out.size(); ++r) out[r].region = RegionId(r);
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    const std::span<const TimeNs> times = compensated.at(LocationId(l));
    const CallNesting nesting = t.index().nesting(LocationId(l));
    for (EventIndex i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] != EventKind::kLeave) continue;
      const EventIndex enter = nesting.EnterOf(i);
      RegionCompensation& rc = out[ev.arg[i]];
      rc.instances++;
      rc.measured_ns += ev.time[i] - ev.time[enter];
      rc.compensated_ns += times[i] - times[enter];
    }
  }
  std::erase_if(out, [](const RegionCompensation& r) { return r.instances == 0; });
  std::stable_sort(out.begin(), out.end(), [](const RegionCompensation& a, const RegionCompensation& b) {
    return a.measured_ns > b.measured_ns;
  });
  return out;
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
    const std::optional<double> parsed = ParseFineDurationNs(value);
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
  std::vector<RegionSpans> spans;
  for (const RegionCompensation& r : c.regions) spans.push_back({t.str(t.region(r.region).name), r.instances, r.measured_ns});
  if (std::optional<std::string> note = ShortGrainsNote(t, spans)) c.notes.push_back(std::move(*note));
  c.times = std::move(r.times);
  return c;
}

}  // namespace grainscope
