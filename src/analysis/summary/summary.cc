#include "analysis/summary/summary.h"

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
  for (uint32_t l = 0; l < trace.locations().size(); ++l)
    for (EventKind k : trace.events(LocationId(l)).kind) s.events_by_kind[static_cast<int>(k)]++;
  return s;
}

}  // namespace grainscope
