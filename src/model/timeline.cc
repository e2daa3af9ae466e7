#include "model/timeline.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "model/trace.h"

namespace grainscope {

size_t Timeline::FirstDecrease(std::span<const TimeNs> times) {
  for (size_t i = 1; i < times.size(); ++i)
    if (times[i] < times[i - 1]) return i;
  return times.size();
}

Status Timeline::Index() {
  TimeNs start = std::numeric_limits<TimeNs>::max();
  TimeNs end = std::numeric_limits<TimeNs>::min();
  event_count_ = 0;
  for (size_t l = 0; l < at_.size(); ++l) {
    const std::span<const TimeNs> times = at_[l];
    const size_t bad = FirstDecrease(times);
    if (bad < times.size()) {
      return Internal(fmt::format("timeline: location {} event {} at {} ns is earlier than the event before it ({} ns)",
                                  l, bad, times[bad], times[bad - 1]));
    }
    event_count_ += times.size();
    if (!times.empty()) {
      start = std::min(start, times.front());
      end = std::max(end, times.back());
    }
  }
  start_ = event_count_ > 0 ? start : 0;
  end_ = event_count_ > 0 ? end : 0;
  return OkStatus();
}

Result<Timeline> Timeline::FromLocations(std::vector<std::vector<TimeNs>> per_location) {
  Timeline t;
  t.per_location_ = std::move(per_location);
  t.at_.assign(t.per_location_.begin(), t.per_location_.end());
  GS_RETURN_IF_ERROR(t.Index());
  return t;
}

Result<Timeline> Timeline::FromFlat(const Trace& trace, std::vector<TimeNs> flat) {
  if (flat.size() != trace.event_count())
    return Internal(fmt::format("timeline: {} times for {} events", flat.size(), trace.event_count()));
  Timeline t;
  t.flat_ = std::move(flat);
  t.at_.reserve(trace.locations().size());
  for (uint32_t l = 0; l < trace.locations().size(); ++l)
    t.at_.push_back(std::span<const TimeNs>(t.flat_).subspan(trace.flat_offset(LocationId(l)), trace.events(LocationId(l)).size()));
  GS_RETURN_IF_ERROR(t.Index());
  return t;
}

}  // namespace grainscope
