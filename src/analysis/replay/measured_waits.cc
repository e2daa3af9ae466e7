#include "analysis/replay/measured_waits.h"

#include <algorithm>
#include <limits>

namespace grainscope {

MeasuredWaits::MeasuredWaits(const HbGraph& g) : g_(g) {
  const Trace& t = g.trace();
  const CollectiveTable& coll = t.collectives();
  feed_.assign(coll.size(), std::numeric_limits<TimeNs>::min());
  for (uint32_t c = 0; c < coll.size(); ++c) {
    const CollectiveId id(c);
    if (EffectiveShape(g, id) == CollectiveShape::kOneToAll) {
      const uint32_t root = g.root_member(id);
      feed_[c] = t.events(coll.member_location[root]).time[coll.member_begin[root]];
      continue;
    }
    for (uint32_t m = coll.first_member[c]; m < coll.first_member[c + 1]; ++m)
      feed_[c] = std::max(feed_[c], t.events(coll.member_location[m]).time[coll.member_begin[m]]);
    if (EffectiveShape(g, id) == CollectiveShape::kPrefix) AddPrefixFeeds(id);
  }
}

// A prefix member's feed: the latest begin of the members before it in rank order.
void MeasuredWaits::AddPrefixFeeds(CollectiveId c) {
  const Trace& t = g_.trace();
  const CollectiveTable& coll = t.collectives();
  if (prefix_feed_.empty()) prefix_feed_.assign(coll.member_location.size(), kNoFeed);
  TimeNs latest = std::numeric_limits<TimeNs>::min();
  for (uint32_t p = 0; p < coll.member_count(c); ++p) {
    const uint32_t m = g_.member_at(c, p);
    prefix_feed_[m] = latest;
    latest = std::max(latest, t.events(coll.member_location[m]).time[coll.member_begin[m]]);
  }
}

TimeNs MeasuredWaits::Available(LocationId l, EventIndex e) const {
  const Trace& t = g_.trace();
  const EventColumns& ev = t.events(l);
  TimeNs a = std::numeric_limits<TimeNs>::min();
  if (ev.kind[e] == EventKind::kRecv) {
    const MessageTable& msgs = t.messages();
    const uint32_t m = ev.arg[e];
    if (msgs.send_event[m] != kNoEvent) a = t.events(msgs.sender[m]).time[msgs.send_event[m]];
  } else if (const uint32_t member = g_.MemberEndingAt(l, e); member != kNoMember) {
    a = FeedTime(member);
  }
  if (g_.incoming().empty()) return a;
  if (const uint32_t end = g_.incoming().Find(l, e); end != DependencyEnds::kNone) {
    const DependencyTable& d = t.dependencies();
    for (uint32_t r : g_.incoming().edges(end)) a = std::max(a, t.events(d.from_location[r]).time[d.from_event[r]]);
  }
  return a;
}

TimeNs MeasuredWaits::Wait(LocationId l, EventIndex e) const {
  const EventColumns& ev = g_.trace().events(l);
  const TimeNs prev = ev.time[e - 1], d = ev.time[e] - prev;
  const TimeNs a = Available(l, e);
  if (a <= prev) return 0;
  return std::min(a - prev, d);
}

TimeNs MeasuredWaits::EdgeLatency(LocationId from, EventIndex from_event, LocationId to, EventIndex to_event) const {
  const Trace& t = g_.trace();
  const EventColumns& ev = t.events(to);
  const TimeNs sent = t.events(from).time[from_event];
  const TimeNs start = to_event > 0 ? std::max(sent, ev.time[to_event - 1]) : sent;
  return std::max<TimeNs>(0, ev.time[to_event] - start);
}

TimeNs MeasuredWaits::MessageLatency(MessageId m) const {
  const MessageTable& msgs = g_.trace().messages();
  return EdgeLatency(msgs.sender[m.value], msgs.send_event[m.value], msgs.receiver[m.value], msgs.recv_event[m.value]);
}

TimeNs MeasuredWaits::DependencyLatency(DependencyId id) const {
  const DependencyTable& d = g_.trace().dependencies();
  return EdgeLatency(d.from_location[id.value], d.from_event[id.value], d.to_location[id.value], d.to_event[id.value]);
}

TimeNs MeasuredWaits::CollectiveLatency(CollectiveId, uint32_t member) const {
  const Trace& t = g_.trace();
  const CollectiveTable& coll = t.collectives();
  const EventColumns& ev = t.events(coll.member_location[member]);
  const EventIndex e = coll.member_end[member];
  const TimeNs feed = FeedTime(member);
  const TimeNs start = e > 0 ? std::max(feed, ev.time[e - 1]) : feed;
  return std::max<TimeNs>(0, ev.time[e] - start);
}

}  // namespace grainscope
