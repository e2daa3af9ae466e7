#include "model/trace_index.h"

#include <mutex>
#include <optional>

#include "base/parallel.h"

namespace grainscope {

struct TraceIndexSlot {
  std::once_flag once;
  std::optional<TraceIndex> index;
};

std::shared_ptr<TraceIndexSlot> NewTraceIndexSlot() { return std::make_shared<TraceIndexSlot>(); }

const TraceIndex& Trace::index() const {
  TraceIndexSlot& slot = *body_->index_slot;
  std::call_once(slot.once, [&] { slot.index.emplace(TraceIndex::Build(*this)); });
  return *slot.index;
}

TraceIndex TraceIndex::Build(const Trace& trace) {
  TraceIndex x;
  x.offsets_ = trace.flat_offsets();
  x.events_ = trace.event_count();
  x.enclosing_ = std::make_unique_for_overwrite<EventIndex[]>(x.events_);
  x.kinds_.reserve(trace.locations().size());
  x.args_.reserve(trace.locations().size());
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    const EventColumns& ev = trace.events(LocationId(l));
    x.kinds_.push_back(ev.kind);
    x.args_.push_back(ev.arg);
  }
  // One location per task (base/parallel.h), each filling its own stretch of the column.
  ParallelFor(trace.locations().size(), Threads(), [&](size_t l) {
    const EventColumns& ev = trace.events(LocationId(static_cast<uint32_t>(l)));
    // `open` is the innermost open call; the column itself links each call to its parent, so
    // closing a call is one load instead of a stack pop.
    EventIndex* enclosing = x.enclosing_.get() + x.offsets_[l];
    EventIndex open = kNoEvent;
    for (EventIndex i = 0; i < ev.size(); ++i) {
      enclosing[i] = open;
      if (ev.kind[i] == EventKind::kEnter) open = i;
      else if (ev.kind[i] == EventKind::kLeave && open != kNoEvent) open = enclosing[open];
    }
  });
  return x;
}

}  // namespace grainscope
