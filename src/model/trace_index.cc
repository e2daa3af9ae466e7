#include "model/trace_index.h"

#include <mutex>
#include <optional>

namespace grainscope {

struct TraceIndexSlot {
  std::once_flag once;
  std::optional<TraceIndex> index;
};

std::shared_ptr<TraceIndexSlot> NewTraceIndexSlot() { return std::make_shared<TraceIndexSlot>(); }

const TraceIndex& Trace::index() const {
  TraceIndexSlot& slot = *body_->index_slot;
  std::call_once(slot.once, [&] { slot.index.emplace(TraceIndex::Build(*body_)); });
  return *slot.index;
}

TraceIndex TraceIndex::Build(const TraceBody& body) {
  TraceIndex x;
  x.kinds_ = body.kinds;
  x.args_ = body.args;
  x.offsets_ = body.flat_offsets;
  uint64_t events = 0;
  for (const std::vector<EventKind>& k : body.kinds) events += k.size();
  x.enclosing_.resize(events);
  EventIndex* out = x.enclosing_.data();
  for (const std::vector<EventKind>& kinds : body.kinds) {
    // `open` is the innermost open call; the column itself links each call to its parent, so
    // closing a call is one load instead of a stack pop.
    EventIndex* enclosing = out;
    EventIndex open = kNoEvent;
    for (EventIndex i = 0; i < kinds.size(); ++i) {
      enclosing[i] = open;
      if (kinds[i] == EventKind::kEnter) open = i;
      else if (kinds[i] == EventKind::kLeave && open != kNoEvent) open = enclosing[open];
    }
    out += kinds.size();
  }
  return x;
}

}  // namespace grainscope
