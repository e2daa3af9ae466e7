// Timeline: the time of every event of one trace, location by location.
//
// A trace carries its recorded timeline; replay, clock correction and overhead compensation each
// compute another one for the same events. `Trace::Retimed` pairs a trace with a new timeline
// without copying anything else, so every analysis and writer runs on the what-if times unchanged,
// and what-if views chain (replay a clock-corrected trace: both share the recorded trace's events).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "base/status.h"
#include "model/ids.h"

namespace grainscope {

using TimeNs = int64_t;
class Trace;

class Timeline {
 public:
  Timeline() = default;
  Timeline(Timeline&&) = default;
  Timeline& operator=(Timeline&&) = default;

  // One time per event of `trace`, its locations laid end to end (location 0's events, then
  // location 1's, ...: the flat order of Trace::flat_offset), as the replay computes them; taken
  // over, not copied. Fails when the count differs from the trace's event count or the times
  // decrease on a location.
  static Result<Timeline> FromFlat(const Trace& trace, std::vector<TimeNs> flat);
  // Per location, its events' times, as a reader appends them; taken over, not copied. Fails when
  // they decrease on a location.
  static Result<Timeline> FromLocations(std::vector<std::vector<TimeNs>> per_location);

  size_t location_count() const { return at_.size(); }
  std::span<const TimeNs> at(LocationId loc) const { return at_[loc.value]; }
  TimeNs at(LocationId loc, EventIndex e) const { return at_[loc.value][e]; }
  uint64_t event_count() const { return event_count_; }
  // Earliest and latest time over all locations; both 0 when there are no events.
  TimeNs start() const { return start_; }
  TimeNs end() const { return end_; }

  // Location `loc`'s times taken out (not copied) when they came per location (FromLocations),
  // else nullopt; the location has none afterwards (its count and bounds are not updated: for a
  // merge that drops the trace next, TraceBuilder::TakeEvents).
  std::optional<std::vector<TimeNs>> Take(LocationId loc) {
    if (per_location_.size() <= loc.value) return std::nullopt;
    at_[loc.value] = {};
    return std::move(per_location_[loc.value]);
  }

  // The first event at which the times decrease, as its index, or size() when they never do.
  static size_t FirstDecrease(std::span<const TimeNs> times);

 private:
  // Checks that no location's times decrease; counts the events and finds start and end.
  Status Index();

  // The storage is one of the two, whichever the times came in: neither layout is ever copied
  // into the other (a reader's per-location columns, a replay's flat array of millions of events).
  std::vector<TimeNs> flat_;
  std::vector<std::vector<TimeNs>> per_location_;
  std::vector<std::span<const TimeNs>> at_;  // per location, into the storage
  uint64_t event_count_ = 0;
  TimeNs start_ = 0;
  TimeNs end_ = 0;
};

}  // namespace grainscope
