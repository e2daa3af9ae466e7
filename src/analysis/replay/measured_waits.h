// How the trace splits each blocking segment (one that ends at a receive completion, or at a
// collective end that waits for others) into waiting and the rest, and what that says about the
// edge's own latency. Shared by every cost model, so the critical path, the replay and the
// compensation agree on what "waiting" was.
//
// For a blocking segment prev -> e of duration d whose input became available at time a (the
// message's send, the latest feeding begin of the collective, the latest source of the dependency
// edges into e; the latest of these when e has several kinds of input):
//   wait    w = clamp(a - t(prev), 0, d)        the location idled until its partner was ready
//   work      = d - w                           receiving / copying after the partner was ready
//   latency L = t(e) - max(a, t(prev)) >= 0     the edge's own transfer time
// Replaying work + max(own chain, partner + L) reproduces t(e) exactly (the identity property):
// if the partner was late, partner + L = t(e); if not, t(prev) + d = t(e).
#pragma once

#include <limits>
#include <vector>

#include "model/hb_graph.h"

namespace grainscope {

class MeasuredWaits {
 public:
  explicit MeasuredWaits(const HbGraph& g);

  // Waiting part of the blocking segment that ends at event e (kRecv or kCollEnd) of location l.
  TimeNs Wait(LocationId l, EventIndex e) const;
  // The measured latency of a matched message, and of the collective edge into `member`'s end.
  TimeNs MessageLatency(MessageId m) const;
  TimeNs CollectiveLatency(CollectiveId c, uint32_t member) const;
  TimeNs DependencyLatency(DependencyId d) const;
  // The time a collective member's end could continue: the latest begin feeding it (the root's
  // begin for one-to-all, the lower ranks' for a prefix).
  TimeNs FeedTime(uint32_t member) const {
    return prefix_feed_.empty() || prefix_feed_[member] == kNoFeed ? feed_[g_.instance_of(member).value]
                                                                   : prefix_feed_[member];
  }

 private:
  // The measured latency of an edge: its target's time after the later of the source's time and
  // the target location's previous event (what the target did not spend waiting), at least 0.
  TimeNs EdgeLatency(LocationId from, EventIndex from_event, LocationId to, EventIndex to_event) const;
  TimeNs Available(LocationId l, EventIndex e) const;  // a, for event e
  void AddPrefixFeeds(CollectiveId c);

  static constexpr TimeNs kNoFeed = std::numeric_limits<TimeNs>::max();
  const HbGraph& g_;
  std::vector<TimeNs> feed_;         // per instance
  std::vector<TimeNs> prefix_feed_;  // per member row of a prefix instance (else kNoFeed)
};

}  // namespace grainscope
