// TraceIndex: the derived per-event columns every analysis shares, built once per trace body.
//
// Today one column: for every event, the Enter event of its enclosing call (call nesting). From
// it follow, without a region stack: the Enter of a Leave, the parent of a call, the innermost
// call (and region) open at or after any event. Analyses that used to walk each location with a
// stack of their own read the nesting here and keep only their own rule.
//
// Contract:
//   * It relies on the Trace invariant that Enter/Leave are properly nested on each location and
//     every entered region is left (TraceBuilder::Finish rejects a trace where they are not, so
//     every Trace satisfies it; trace_index_test.cc asserts that the builder does).
//   * Built on first use (Trace::index()), thread-safe, once per TraceBody: a trace and its
//     retimed views (Trace::Retimed) share one index. 4 bytes per event.
//   * Only what does not depend on times is stored. Timeline-dependent sums (the inclusive time
//     of a call under a replayed or compensated timeline) are computed by the analysis from the
//     index against whichever Timeline it uses: time[leave] - time[EnterOf(leave)].
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "model/trace.h"

namespace grainscope {

// The call nesting of one location's events: views into the trace body and its index.
class CallNesting {
 public:
  CallNesting(std::span<const EventKind> kind, std::span<const uint32_t> arg,
              std::span<const EventIndex> enclosing)
      : kind_(kind), arg_(arg), enclosing_(enclosing) {}

  size_t size() const { return enclosing_.size(); }
  // The Enter event of the call enclosing event e: for an Enter, its parent call's; for a Leave,
  // its own call's; for any other event, the innermost open call's. kNoEvent when there is none.
  EventIndex Enclosing(EventIndex e) const { return enclosing_[e]; }
  // The Enter matching Leave `leave`.
  EventIndex EnterOf(EventIndex leave) const { return enclosing_[leave]; }
  // The call around call `enter` (its Enter event), or kNoEvent at top level.
  EventIndex Parent(EventIndex enter) const { return enclosing_[enter]; }
  // The innermost call open between event e and event e + 1 (during the segment after e): e for
  // an Enter, the closed call's parent for a Leave, the enclosing call otherwise; or kNoEvent.
  EventIndex OpenAfter(EventIndex e) const {
    switch (kind_[e]) {
      case EventKind::kEnter: return e;
      case EventKind::kLeave: return enclosing_[enclosing_[e]];
      default: return enclosing_[e];
    }
  }
  // The region of call `enter`; invalid for kNoEvent.
  RegionId RegionOf(EventIndex enter) const { return enter == kNoEvent ? RegionId() : RegionId(arg_[enter]); }
  // The innermost region open during the segment after event e; invalid when none is.
  RegionId RegionAfter(EventIndex e) const { return RegionOf(OpenAfter(e)); }

  // f(e, RegionAfter(e)) for every segment e -> e+1 with e in [from, to), in order: a scan that
  // follows the nesting (one load at each Leave) instead of looking every segment up.
  template <typename F>
  void ForEachSegment(EventIndex from, EventIndex to, F&& f) const {
    if (from >= to) return;
    EventIndex open = OpenAfter(from);
    RegionId region = RegionOf(open);
    for (EventIndex e = from;;) {
      f(e, region);
      if (++e == to) return;
      if (kind_[e] == EventKind::kEnter) {
        open = e;
        region = RegionId(arg_[e]);
      } else if (kind_[e] == EventKind::kLeave) {
        open = enclosing_[open];
        region = RegionOf(open);
      }
    }
  }

 private:
  std::span<const EventKind> kind_;
  std::span<const uint32_t> arg_;
  std::span<const EventIndex> enclosing_;
};

class TraceIndex {
 public:
  // One pass over every location's event kinds (no stack: the column is itself the chain of
  // open calls). Trace::index() calls it once per body; benchmarks call it to time the build.
  static TraceIndex Build(const Trace& trace);

  CallNesting nesting(LocationId loc) const {
    const std::span<const EventKind> kind = kinds_[loc.value];
    return CallNesting(kind, args_[loc.value], std::span<const EventIndex>(enclosing_.get() + offsets_[loc.value], kind.size()));
  }
  // Heap bytes the index holds (its columns).
  size_t bytes() const {
    return events_ * sizeof(EventIndex) + kinds_.capacity() * sizeof(kinds_[0]) + args_.capacity() * sizeof(args_[0]);
  }

 private:
  // Per location, views into the trace body (shared by every trace that shares the body, which
  // owns this index: they live as long as it does).
  std::vector<std::span<const EventKind>> kinds_;
  std::vector<std::span<const uint32_t>> args_;
  std::span<const uint64_t> offsets_;
  // Flat, in Trace::flat_offset order; allocated without zeroing (the build writes every entry).
  std::unique_ptr<EventIndex[]> enclosing_;
  uint64_t events_ = 0;
};

}  // namespace grainscope
