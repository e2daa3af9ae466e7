// The sweeps' state for prefix collectives (scan, exscan; hb_graph.h): which lower (higher)
// ranks' begins (ends) a member's end (begin) still waits for, and their latest (earliest) value.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "model/hb_graph.h"

namespace grainscope::sweep_internal {

// The prefix instances' (scan, exscan) inputs, gathered in rank order as members arrive: a
// member's end waits for the begins of every lower rank (forward), a member's begin feeds the
// ends of every higher rank (backward). Per instance a frontier of the positions whose events are
// known without a gap from the first rank (forward) or the last (backward), the running max (or
// min) over them, and per member the value of those before it. O(members) per instance.
class PrefixFrontier {
 public:
  PrefixFrontier() = default;
  PrefixFrontier(const HbGraph& g, bool forward)
      : g_(&g), forward_(forward),
        frontier_(g.trace().collectives().size(), 0),
        running_(g.trace().collectives().size(),
                 forward ? std::numeric_limits<TimeNs>::min() : std::numeric_limits<TimeNs>::max()),
        running_arg_(g.trace().collectives().size(), kNoMember),
        in_(g.trace().collectives().member_location.size(), running_.empty() ? 0 : running_[0]),
        arg_(g.trace().collectives().member_location.size(), kNoMember) {}

  // Has every member on the waiting side of `member` (lower ranks forward, higher backward) done
  // its event?
  bool Ready(uint32_t member) const {
    const CollectiveId c = g_->instance_of(member);
    const uint32_t p = g_->position(member), n = g_->trace().collectives().member_count(c);
    return forward_ ? frontier_[c.value] >= p : frontier_[c.value] >= n - 1 - p;
  }
  TimeNs In(uint32_t member) const { return in_[member]; }   // max (min) over those members
  uint32_t Arg(uint32_t member) const { return arg_[member]; }  // the member realising it
  // After a member of instance c did its event: moves the frontier over every member done,
  // `done(m)` saying which, `value(m)` what each passes on. True when it moved.
  template <class Done, class Value>
  [[gnu::noinline]] bool Advance(CollectiveId c, Done done, Value value) {
    const uint32_t n = g_->trace().collectives().member_count(c);
    uint32_t& f = frontier_[c.value];
    const uint32_t before = f;
    while (f < n) {
      const uint32_t m = g_->member_at(c, forward_ ? f : n - 1 - f);
      in_[m] = running_[c.value];
      arg_[m] = running_arg_[c.value];
      if (!done(m)) break;
      const TimeNs v = value(m);
      if (running_arg_[c.value] == kNoMember || (forward_ ? v > running_[c.value] : v < running_[c.value])) {
        running_[c.value] = v;
        running_arg_[c.value] = m;
      }
      ++f;
    }
    return f != before;
  }

 private:
  const HbGraph* g_ = nullptr;
  bool forward_ = true;
  std::vector<uint32_t> frontier_;
  std::vector<TimeNs> running_;
  std::vector<uint32_t> running_arg_;
  std::vector<TimeNs> in_;
  std::vector<uint32_t> arg_;
};

}  // namespace grainscope::sweep_internal
