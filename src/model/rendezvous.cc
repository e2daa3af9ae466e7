#include "model/rendezvous.h"

#include <algorithm>
#include <charconv>

#include "model/metadata_keys.h"

namespace grainscope {
namespace {

// Generic over a TraceBody and a Trace (both have messages and regions), so that the
// edges the model adds and the messages the wait states call rendezvous follow one rule.
template <typename KindsOf, typename ArgsOf>
std::vector<uint8_t> RendezvousRule(const MessageTable& msgs, std::span<const Region> regions, KindsOf kinds_of,
                                    ArgsOf args_of, uint64_t eager_limit_bytes) {
  // Synchronous sends are looked for only when the trace has such a call: a trace without any
  // costs no look at its events.
  const bool has_synchronous =
      std::any_of(regions.begin(), regions.end(), [](const Region& r) { return r.synchronous_send; });
  auto synchronous = [&](uint32_t m) {
    const EventIndex call = EnclosingEnter(kinds_of(msgs.sender[m]), msgs.send_event[m]);
    return call != kNoEvent && regions[args_of(msgs.sender[m])[call]].synchronous_send;
  };
  std::vector<uint8_t> out(msgs.size(), 0);
  for (uint32_t m = 0; m < msgs.size(); ++m) {
    // A message to itself needs no edge: the location's own order already holds.
    if (!msgs.matched(MessageId(m)) || msgs.sender[m] == msgs.receiver[m]) continue;
    out[m] = msgs.bytes[m] > eager_limit_bytes || (has_synchronous && synchronous(m));
  }
  return out;
}

}  // namespace

// How far a call's Enter or Leave is looked for from the event inside it: MPI calls hold one or
// two events, so a longer search means the event is in no call (and would cost a scan per message).
constexpr EventIndex kCallReach = 64;

EventIndex EnclosingEnter(std::span<const EventKind> kinds, EventIndex e) {
  int depth = 0;
  for (EventIndex i = e, steps = 0; i-- > 0 && steps < kCallReach; ++steps) {
    if (kinds[i] == EventKind::kLeave) ++depth;
    if (kinds[i] == EventKind::kEnter && depth-- == 0) return i;
  }
  return kNoEvent;
}

EventIndex EnclosingLeave(std::span<const EventKind> kinds, EventIndex e) {
  int depth = 0;
  for (EventIndex i = e + 1, steps = 0; i < kinds.size() && steps < kCallReach; ++i, ++steps) {
    if (kinds[i] == EventKind::kEnter) ++depth;
    if (kinds[i] == EventKind::kLeave && depth-- == 0) return i;
  }
  return kNoEvent;
}

std::optional<EagerLimit> TraceEagerLimit(const Trace& trace) {
  const std::string_view bytes = trace.Metadata(metadata::kEagerLimitBytes);
  EagerLimit limit;
  if (bytes.empty() || std::from_chars(bytes.data(), bytes.data() + bytes.size(), limit.bytes).ec != std::errc())
    return std::nullopt;
  limit.source = trace.Metadata(metadata::kEagerLimitSource);
  return limit;
}

size_t RendezvousSends(const Trace& trace) {
  const std::vector<DependencyKind>& kinds = trace.dependencies().kind;
  return static_cast<size_t>(std::count(kinds.begin(), kinds.end(), DependencyKind::kRendezvous));
}

std::vector<uint8_t> RendezvousMessages(const TraceBody& body, uint64_t eager_limit_bytes) {
  return RendezvousRule(
      body.messages, body.regions,
      [&](LocationId l) { return std::span<const EventKind>(body.kinds[l.value]); },
      [&](LocationId l) { return std::span<const uint32_t>(body.args[l.value]); }, eager_limit_bytes);
}

std::vector<uint8_t> RendezvousMessages(const Trace& trace) {
  const std::optional<EagerLimit> limit = TraceEagerLimit(trace);
  if (!limit) return std::vector<uint8_t>(trace.messages().size(), 0);
  return RendezvousRule(
      trace.messages(), trace.regions(), [&](LocationId l) { return trace.events(l).kind; },
      [&](LocationId l) { return trace.events(l).arg; }, limit->bytes);
}

RendezvousEdges FindRendezvousEdges(const TraceBody& body, std::span<const std::span<const TimeNs>> times,
                                    uint64_t eager_limit_bytes) {
  const MessageTable& msgs = body.messages;
  const std::vector<uint8_t> is_rendezvous = RendezvousMessages(body, eager_limit_bytes);
  std::vector<uint32_t> rendezvous;
  for (uint32_t m = 0; m < msgs.size(); ++m)
    if (is_rendezvous[m]) rendezvous.push_back(m);
  RendezvousEdges out;
  if (rendezvous.empty()) return out;
  // The request events of non-blocking sends and receives, per message.
  std::vector<EventIndex> completed(msgs.size(), kNoEvent), posted(msgs.size(), kNoEvent);
  for (size_t l = 0; l < body.kinds.size(); ++l) {
    const std::vector<EventKind>& kinds = body.kinds[l];
    for (EventIndex e = 0; e < kinds.size(); ++e) {
      if (kinds[e] == EventKind::kSendComplete) completed[body.args[l][e]] = e;
      if (kinds[e] == EventKind::kRecvPost) posted[body.args[l][e]] = e;
    }
  }
  for (uint32_t m : rendezvous) {
    const LocationId s = msgs.sender[m], r = msgs.receiver[m];
    const EventIndex done = completed[m] != kNoEvent ? completed[m] : EnclosingLeave(body.kinds[s.value], msgs.send_event[m]);
    const EventIndex post = posted[m] != kNoEvent ? posted[m] : EnclosingEnter(body.kinds[r.value], msgs.recv_event[m]);
    // Strictly before: a send completing when the receive is posted never waited for it (it went
    // eagerly after all: a larger limit, or clocks that disagree), and an edge between equal
    // times could close a cycle with the message's own edge.
    if (done == kNoEvent || post == kNoEvent || times[r.value][post] >= times[s.value][done]) continue;
    out.edges.kind.push_back(DependencyKind::kRendezvous);
    out.edges.from_location.push_back(r);
    out.edges.from_event.push_back(post);
    out.edges.to_location.push_back(s);
    out.edges.to_event.push_back(done);
  }
  return out;
}

}  // namespace grainscope
