// Overhead compensation, post mortem (SPEC.md §5; Malony, Shende, Biersdorff).
//
// Every recorded event cost the program `overhead_per_event_ns`: the replay takes it off every
// segment, so each location's delay grows by one overhead per event, and the delay travels with
// the messages and collectives: a receive that waited for a sender that was itself delayed
// gets that wait back only as far as the sender's delay allows (x2' = min(x1, x2 + w)). The
// naive alternative — each location's time minus its own events' overhead — ignores that and is
// reported alongside for comparison.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/replay/replay.h"
#include "base/status.h"
#include "model/metadata_keys.h"
#include "model/trace.h"

namespace grainscope {

// The trace metadata key under which the recorder stores its calibrated per-event overhead.
inline constexpr std::string_view kOverheadMetadataKey = metadata::kOverheadPerEventNs;

struct CompensateOptions {
  std::optional<double> overhead_per_event_ns;  // overrides the trace's calibration
};

struct RegionCompensation {
  RegionId region;
  uint64_t instances = 0;
  TimeNs measured_ns = 0;     // inclusive time, summed over instances
  TimeNs compensated_ns = 0;
};

struct Compensation {
  double overhead_per_event_ns = 0;  // with the fraction the calibration has (two decimals)
  std::string overhead_source;  // "trace calibration" or "--overhead"
  TimeNs measured_ns = 0;
  TimeNs compensated_ns = 0;
  TimeNs naive_ns = 0;  // max over locations of (its span - its events x overhead)
  std::vector<LocationReplay> locations;
  std::vector<RegionCompensation> regions;  // by measured time, largest first
  Timeline times;                           // compensated time of every event
  // What limits the result's accuracy, in a sentence each (e.g. tiny grains under the plain TSC).
  std::vector<std::string> notes;
};

// Fails when neither the options nor the trace give a per-event overhead.
Result<Compensation> Compensate(const Trace& trace, const CompensateOptions& options = {});

}  // namespace grainscope
