#include "analysis/summary/summary.h"

#include <algorithm>

namespace grainscope {

TraceSummary Summarize(const Trace& trace) {
  TraceSummary s;
  s.format = std::string(trace.format());
  s.locations = trace.locations().size();
  for (const Location& l : trace.locations()) s.locations_by_kind[static_cast<int>(l.kind)]++;
  s.regions = trace.regions().size();
  for (const Region& r : trace.regions()) s.grains += r.role == RegionRole::kGrain;
  s.events = trace.event_count();
  const MessageTable& m = trace.messages();
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (m.send_event[i] != kNoEvent) s.bytes_sent += m.bytes[i];
    if (m.recv_event[i] != kNoEvent) s.bytes_received += m.bytes[i];
    if (m.matched(MessageId(i))) {
      ++s.messages;
      s.message_bytes += m.bytes[i];
    } else {
      ++s.unmatched_messages;
    }
  }
  s.collectives = trace.collectives().size();
  s.origin_ns = trace.origin_ns();
  s.start_ns = trace.start_ns() - trace.origin_ns();
  s.end_ns = trace.end_ns() - trace.origin_ns();
  std::vector<uint64_t> calls(trace.regions().size(), 0);
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    const EventColumns& ev = trace.events(LocationId(l));
    for (size_t i = 0; i < ev.size(); ++i) {
      s.events_by_kind[static_cast<int>(ev.kind[i])]++;
      if (ev.kind[i] == EventKind::kEnter) calls[ev.arg[i]]++;
    }
  }
  for (uint32_t r = 0; r < calls.size(); ++r)
    if (calls[r] > 0 && IsCommunication(trace.region(RegionId(r)).role)) s.communication_calls.emplace_back(RegionId(r), calls[r]);
  std::sort(s.communication_calls.begin(), s.communication_calls.end(), [&](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : trace.str(trace.region(a.first).name) < trace.str(trace.region(b.first).name);
  });
  return s;
}

}  // namespace grainscope
