#include "analysis/replay/sweep.h"

namespace grainscope::sweep_internal {

// Only a trace whose messages or collectives cross in time can stop the sweep before every
// location is done (each waits for something the other produces later): report the first, from
// `first` on (over shares: an own location; a ghost location's cursor waits for nothing).
Status StuckError(const HbGraph& g, const std::vector<Cursor>& cursors, bool forward, uint32_t first) {
  const Trace& t = g.trace();
  for (uint32_t l = first; l < cursors.size(); ++l) {
    const Cursor& c = cursors[l];
    const EventColumns& ev = t.events(LocationId(l));
    const bool stuck = forward ? c.next < ev.size() : c.next > 0;
    if (!stuck) continue;
    const EventIndex e = forward ? c.next : c.next - 1;
    std::string what;
    if (c.wait == Wait::kMessage) {
      what = fmt::format("message {} from {}", c.wait_id, t.str(t.location(t.messages().sender[c.wait_id]).name));
    } else if (c.wait == Wait::kDependency) {
      const DependencyTable& d = t.dependencies();
      what = fmt::format("{} dependency {} from {}", DependencyKindName(d.kind[c.wait_id]), c.wait_id,
                         t.str(t.location(d.from_location[c.wait_id]).name));
    } else {
      what = fmt::format("collective {}", c.wait_id);
    }
    return FailedPrecondition(fmt::format(
        "the happens-before graph has a cycle: {} at event {} ({} ns) waits for {}, which depends on it "
        "(messages, collectives or dependencies cross in time)",
        t.str(t.location(LocationId(l)).name), e, ev.time[e], what));
  }
  return Internal("sweep stopped without a stuck location");
}

}  // namespace grainscope::sweep_internal
