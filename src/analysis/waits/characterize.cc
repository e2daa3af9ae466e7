#include "analysis/waits/characterize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <tuple>

#include "base/parallel.h"
#include "base/progress.h"
#include "model/hb_graph.h"
#include "analysis/replay/measured_waits.h"
#include "analysis/waits/class_search.h"
#include "analysis/waits/completion_order.h"
#include "analysis/waits/launch_origins.h"
#include "analysis/waits/sync_events.h"
#include "analysis/waits/path_cache.h"
#include "analysis/waits/sparse_steps.h"
#include "model/trace_index.h"

namespace grainscope {

std::string_view StepStateName(StepState s) {
  switch (s) {
    case StepState::kCompute: return "compute";
    case StepState::kCommunication: return "communication";
    case StepState::kCollective: return "collective";
    case StepState::kWait: return "wait";
    case StepState::kPropagated: return "propagated";
  }
  return "unknown";
}

namespace {

using steps::Entry;
using steps::Range;
using steps::Sparse;
using steps::View;
using steps::AddInto;
using steps::Store;
using steps::Subtract;

// The late locations' paths are cached: every waiter of a barrier that last synchronised with
// the late location at the same point asks for the same one.
class Characterizer {
  using Completions = std::vector<std::pair<uint64_t, uint32_t>>;

 public:
  Characterizer(const Trace& t, const CallSites& cs, const WaitStates& ws, const CharacterizeOptions& o)
      : t_(t), cs_(cs), ws_(ws), o_(o), g_(t), measured_(g_), slots_(static_cast<uint32_t>(t.regions().size()) + 1),
        slot_of_(SlotsByName(t)),
        scratch_(slots_ * kStepStates, 0), plain_(slots_, 0), origins_(LaunchOrigins(t)), buckets_(slots_ * kStepStates) {
    // Per slot, the step of its plain time and of its waiting: no region lookups in the path loop.
    run_step_.resize(slots_);
    wait_step_.resize(slots_);
    for (uint32_t s = 0; s < slots_; ++s) {
      const RegionId r = s + 1 == slots_ ? RegionId() : RegionId(s);
      run_step_[s] = s * kStepStates + static_cast<uint32_t>(StateOf(r));
      wait_step_[s] = s * kStepStates + static_cast<uint32_t>(StepState::kWait);
    }
  }

  Characterization Run() {
    FindLastSyncs();
    BuildCheckpoints();
    const std::vector<uint32_t> order = CompletionOrder(ws_.instances);  // completion_order.h
    IndexCompletions(order);
    Characterization out;
    // Per sync point (flat, by id): its classes while they form.
    std::vector<SyncPointClasses> points(ws_.sync_points.size());
    class_state_.resize(ws_.sync_points.size());
    std::vector<TimeNs> delay(slots_, 0);
    chars_.resize(ws_.instances.size());
    // The step that takes longest on a large trace: the bar counts the waits explained.
    progress::Begin("explaining waits", order.size());
    for (uint32_t k : order) {
      if ((out.characterized & 1023) == 0) progress::Advance(out.characterized);
      chars_[k] = Explain(k);
      const View c = chars_[k].in(char_pool_);
      ++out.characterized;
      const WaitInstance& w = ws_.instances[k];
      SyncPointClasses& sp = points[w.sync_point];
      sp.sync_point = w.sync_point;
      sp.wait_ns += w.wait_ns;
      sp.count++;
      Classify(sp, c, w.wait_ns);
      ChargeRootCause(c, w.wait_ns, delay);
    }
    progress::Advance(out.characterized);
    for (SyncPointClasses& sp : points) {
      if (sp.count == 0) continue;
      FillSteps(sp);
      std::stable_sort(sp.classes.begin(), sp.classes.end(),
                       [](const WaitClass& a, const WaitClass& b) { return a.wait_ns > b.wait_ns; });
      out.sync_points.push_back(std::move(sp));
    }
    std::stable_sort(out.sync_points.begin(), out.sync_points.end(),
                     [](const SyncPointClasses& a, const SyncPointClasses& b) { return a.wait_ns > b.wait_ns; });
    for (uint32_t s = 0; s < slots_; ++s)
      if (delay[s] > 0) out.root_causes.push_back({s + 1 == slots_ ? RegionId() : RegionId(s), delay[s]});
    std::stable_sort(out.root_causes.begin(), out.root_causes.end(),
                     [](const RegionDelay& a, const RegionDelay& b) { return a.delay_ns > b.delay_ns; });
    return out;
  }

 private:
  struct SyncPair {
    EventIndex waiter = 0;  // the waiter's last event synchronising with the late location
    EventIndex late = 0;    // the late location's matching event
    bool synced = false;    // false: they never synchronised before the wait
  };

  // The waits with a late location sorted by key(wait), equal keys in index order (a stable
  // sort). Sorting (key, index) pairs reads each wait once instead of twice per comparison.
  template <typename KeyOf>
  std::vector<uint32_t> WaitsSortedBy(KeyOf key_of) const {
    using Key = decltype(key_of(ws_.instances[0]));
    std::vector<std::pair<Key, uint32_t>> keyed;
    for (uint32_t k = 0; k < ws_.instances.size(); ++k)
      if (ws_.instances[k].late.valid()) keyed.push_back({key_of(ws_.instances[k]), k});
    std::sort(keyed.begin(), keyed.end());
    std::vector<uint32_t> out(keyed.size());
    for (size_t i = 0; i < keyed.size(); ++i) out[i] = keyed[i].second;
    return out;
  }

  // completions_: (flat completion event, wait) sorted by event, one wait per event (the last
  // in `order` when several share one), so a path finds its nested waits by walking it.
  void IndexCompletions(const std::vector<uint32_t>& order) {
    completions_.clear();  // first (event, position in order), sorted; in place, then the wait
    completions_.reserve(order.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
      const WaitInstance& w = ws_.instances[order[i]];
      completions_.push_back({g_.flat(w.waiter, w.waiter_event), i});
    }
    std::sort(completions_.begin(), completions_.end());
    size_t kept = 0;
    for (size_t i = 0; i < completions_.size(); ++i) {
      if (i + 1 < completions_.size() && completions_[i + 1].first == completions_[i].first) continue;
      completions_[kept++] = {completions_[i].first, order[completions_[i].second]};
    }
    completions_.resize(kept);
  }

  // For every wait, where the waiter and the late location last synchronised before it: one pass
  // per location keeping, per partner, the latest message received from it and sent to it, and
  // the latest collective. A message the waiter sent synchronises only if the late location
  // received it before its late arrival (in a halo exchange it is usually received in the very
  // call that arrives late, and is no earlier common point at all).
  void FindLastSyncs() {
    const CollectiveTable& coll = t_.collectives();
    const uint32_t locations = static_cast<uint32_t>(t_.locations().size());
    last_sync_.resize(ws_.instances.size());
    // The waits by (waiter, start of the waiter's call).
    const std::vector<uint32_t> waits =
        WaitsSortedBy([](const WaitInstance& w) { return uint64_t{w.waiter.value} << 32 | w.waiter_from; });
    const std::vector<std::vector<SyncEvent>> sync_events = SyncEventsByLocation(t_, g_);
    // Latest message per partner and direction; stamp[p] == l + 1 marks entries written on
    // location l.
    std::vector<SyncPair> received(locations), sent(locations);
    std::vector<uint32_t> received_stamp(locations, 0), sent_stamp(locations, 0);
    uint32_t l = UINT32_MAX, last_member = UINT32_MAX;
    size_t applied = 0;  // sync_events[l][0, applied) are in p2p / last_member
    for (uint32_t k : waits) {
      const WaitInstance& w = ws_.instances[k];
      if (w.waiter.value != l) {
        l = w.waiter.value;
        last_member = UINT32_MAX;
        applied = 0;
      }
      // The state just before the waiter's call: every synchronisation before it applied. A wait
      // in no call (a stream idle until its next launch) starts at the location's last event,
      // whose synchronisation (a kernel's end its thread waited for) came before the waiting;
      // a call's Enter is the call's own (the copy a cudaMemcpyAsync launches).
      const std::vector<SyncEvent>& mine = sync_events[l];
      const bool idle = !w.call.valid() && w.waiter_from != w.waiter_event;  // not a bare receive's own event
      const EventIndex before = idle ? w.waiter_from + 1 : w.waiter_from;
      for (; applied < mine.size() && mine[applied].event < before; ++applied) {
        const SyncEvent& se = mine[applied];
        if (se.kind == EventKind::kCollEnd) {
          if (const uint32_t m = g_.MemberEndingAt(w.waiter, se.event); m != UINT32_MAX) last_member = m;
        } else if (se.kind == EventKind::kRecv) {
          received[se.partner] = {se.event, se.partner_event, true};
          received_stamp[se.partner] = l + 1;
        } else {
          sent[se.partner] = {se.event, se.partner_event, true};
          sent_stamp[se.partner] = l + 1;
        }
      }
      SyncPair best;
      if (received_stamp[w.late.value] == l + 1) best = received[w.late.value];
      if (sent_stamp[w.late.value] == l + 1 && sent[w.late.value].late < w.late_arrival &&
          sent[w.late.value].waiter >= best.waiter)
        best = sent[w.late.value];
      if (last_member != UINT32_MAX) {
        const uint32_t other = MemberOf(coll, g_.instance_of(last_member), w.late);
        if (other != UINT32_MAX && coll.member_end[last_member] >= best.waiter)
          best = {coll.member_end[last_member], coll.member_end[other], true};
      }
      last_sync_[k] = best;
    }
    KeepBlockingEvents(sync_events);
  }

  // blocking_: per location, its blocking events (receives, collective ends) once each, in order.
  void KeepBlockingEvents(const std::vector<std::vector<SyncEvent>>& sync_events) {
    blocking_.resize(sync_events.size());
    ParallelFor(sync_events.size(), Threads(), [&](size_t l) {
      std::vector<EventIndex>& out = blocking_[l];
      for (const SyncEvent& se : sync_events[l])
        if (se.kind != EventKind::kSend && (out.empty() || out.back() != se.event)) out.push_back(se.event);
      out.shrink_to_fit();
    });
  }

  StepState StateOf(RegionId r) const {
    if (!r.valid()) return StepState::kCompute;
    switch (t_.region(r).role) {
      case RegionRole::kPointToPoint:
      case RegionRole::kOneSided:
      case RegionRole::kWait: return StepState::kCommunication;
      case RegionRole::kCollective:
      case RegionRole::kBarrier: return StepState::kCollective;
      default: return StepState::kCompute;
    }
  }

  // Inlined by force: it runs once per event of every path, and GCC stops inlining it once the
  // path loop has grown.
  [[gnu::always_inline]] void Add(uint32_t step, TimeNs ns) {
    if (ns == 0) return;
    if (scratch_[step] == 0) touched_.push_back(step);
    scratch_[step] += ns;
  }

  // The steps of location l between events `from` and `to` (segments from -> from+1 ... to-1 -> to)
  // into `out`, sorted by step: every segment's time in its region, then the blocking segments'
  // waiting moved out of it.
  void Path(LocationId l, EventIndex from, EventIndex to, Sparse& out) {
    touched_.clear();
    PlainTime(l, from, to);
    MoveWaiting(l, from, to);
    out.clear();
    for (uint32_t s : touched_) {
      if (scratch_[s] != 0) out.push_back({s, scratch_[s]});
      scratch_[s] = 0;
    }
    std::sort(out.begin(), out.end());
  }

  // Every segment's whole time, in the step of its innermost region: from the checkpoints when
  // the path spans at least two, else event by event. Summed per slot first (plain_, all zero
  // between calls), then added to the path: the per-event loop then has no branch and no store
  // the compiler must order against the path's. A path shorter than the slot count is added
  // event by event instead, so that a trace of many regions does not pay a pass over all slots.
  void PlainTime(LocationId l, EventIndex from, EventIndex to) {
    if (to - from < slots_) {
      ForEachSlot(l, from, to, [&](EventIndex, uint32_t slot, TimeNs segment) { Add(run_step_[slot], segment); });
      return;
    }
    TimeNs* plain = plain_.data();
    auto sum = [plain](EventIndex, uint32_t slot, TimeNs segment) { plain[slot] += segment; };
    const EventIndex c1 = (from + every_ - 1) / every_, c2 = to / every_;
    if (to - from < 2 * every_ || c2 <= c1) {
      ForEachSlot(l, from, to, sum);
    } else {
      ForEachSlot(l, from, c1 * every_, sum);
      const TimeNs* a = &checkpoints_[(first_checkpoint_[l.value] + c1) * slots_];
      const TimeNs* b = &checkpoints_[(first_checkpoint_[l.value] + c2) * slots_];
      for (uint32_t s = 0; s < slots_; ++s) plain[s] += b[s] - a[s];
      ForEachSlot(l, c2 * every_, to, sum);
    }
    for (uint32_t s = 0; s < slots_; ++s) {
      Add(run_step_[s], plain[s]);
      plain[s] = 0;
    }
  }

  // f(e, slot, ns) for every segment e -> e+1 of location l with e in [from, to): its slot and
  // its time. From slot8_ when BuildCheckpoints made it, else from the trace index's nesting.
  template <typename F>
  void ForEachSlot(LocationId l, EventIndex from, EventIndex to, F&& f) const {
    const TimeNs* time = t_.events(l).time.data();
    if (!slot8_.empty()) {
      const uint8_t* slot = slot8_.data() + g_.offset(l);
      for (EventIndex e = from; e < to; ++e) f(e, slot[e], time[e + 1] - time[e]);
      return;
    }
    const uint32_t last_slot = slots_ - 1;
    t_.index().nesting(l).ForEachSegment(from, to, [&](EventIndex e, RegionId r) {
      f(e, slot_of_[std::min(r.value, last_slot)], time[e + 1] - time[e]);
    });
  }

  // The slot of the segment after event e: its innermost region; invalid (outside any region) is
  // the largest value.
  uint32_t SlotAfter(const CallNesting& nesting, EventIndex e) const { return Slot(nesting.RegionAfter(e)); }
  uint32_t Slot(RegionId region) const { return slot_of_[std::min(region.value, slots_ - 1)]; }
  // Per region, then one for outside any region: the slot its time goes to, the first region of
  // its name and role (one function defined twice is one cause).
  static std::vector<uint32_t> SlotsByName(const Trace& t) {
    std::vector<uint32_t> slot = FirstRegionOfName(t);
    slot.push_back(static_cast<uint32_t>(t.regions().size()));
    return slot;
  }

  // The waiting inside the path's blocking segments (those ending at a receive or a collective
  // end), moved from the segment's region to its wait step or to the nested wait's explanation.
  void MoveWaiting(LocationId l, EventIndex from, EventIndex to) {
    const uint64_t base = g_.offset(l);
    const CallNesting nesting = t_.index().nesting(l);
    const TimeNs* time = t_.events(l).time.data();
    const std::vector<EventIndex>& blocking = blocking_[l.value];
    auto nested = std::lower_bound(completions_.cbegin(), completions_.cend(), base + from + 1,
                                   [](const std::pair<uint64_t, uint32_t>& c, uint64_t e) { return c.first < e; });
    for (auto it = std::upper_bound(blocking.begin(), blocking.end(), from); it != blocking.end() && *it <= to; ++it) {
      const EventIndex x = *it;
      const uint32_t slot = SlotAfter(nesting, x - 1);
      const TimeNs waited = Blocked(l, x, base, slot, nested, time[x] - time[x - 1]);
      Add(run_step_[slot], -waited);
    }
  }

  // checkpoints_: for every location and every checkpoint c, the plain time per slot of its
  // segments [0, c * every_). The spacing grows with the slot count so the table stays within
  // 2 bytes per event. With at most 256 slots the same pass keeps every segment's slot (slot8_,
  // 1 byte per event), which the paths' scans then read instead of following the nesting.
  void BuildCheckpoints() {
    every_ = std::max<uint32_t>(64, 4 * slots_);
    const uint32_t locations = static_cast<uint32_t>(t_.locations().size());
    first_checkpoint_.assign(locations + 1, 0);
    for (uint32_t l = 0; l < locations; ++l) {
      const size_t n = t_.events(LocationId(l)).size();
      first_checkpoint_[l + 1] = first_checkpoint_[l] + (n == 0 ? 0 : (n - 1) / every_ + 1);
    }
    checkpoints_.assign(first_checkpoint_[locations] * slots_, 0);
    std::vector<uint8_t> slots;
    if (slots_ <= 256) slots.resize(t_.event_count());
    // One location per task (base/parallel.h), each filling its own rows and slots.
    ParallelFor(locations, Threads(), [&](size_t l) {
      const EventColumns& ev = t_.events(LocationId(static_cast<uint32_t>(l)));
      if (ev.size() == 0) return;
      std::vector<TimeNs> running(slots_, 0);
      TimeNs* out = &checkpoints_[first_checkpoint_[l] * slots_];
      uint8_t* slot = slots.empty() ? nullptr : slots.data() + g_.offset(LocationId(static_cast<uint32_t>(l)));
      const EventIndex last = static_cast<EventIndex>(ev.size()) - 1;  // segments [0, last)
      for (EventIndex begin = 0; begin <= last; begin += every_) {
        out = std::copy(running.begin(), running.end(), out);
        const EventIndex end = std::min<EventIndex>(begin + every_, last);
        ForEachSlot(LocationId(static_cast<uint32_t>(l)), begin, end, [&](EventIndex e, uint32_t s, TimeNs segment) {
          running[s] += segment;
          if (slot != nullptr) slot[e] = static_cast<uint8_t>(s);
        });
      }
    });
    slot8_ = std::move(slots);
  }

  // The waiting part of the blocking segment ending at event e (of `seg` ns), added to the path:
  // a characterised wait as its own explanation, any other as plain waiting in `slot`.
  TimeNs Blocked(LocationId l, EventIndex e, uint64_t base, uint32_t slot,
                 Completions::const_iterator& nested, TimeNs seg) {
    while (nested != completions_.end() && nested->first < base + e) ++nested;
    if (nested != completions_.end() && nested->first == base + e) {
      const uint32_t k = nested->second;
      const TimeNs waited = std::min(seg, ws_.instances[k].wait_ns);
      Expand(chars_[k].in(char_pool_), waited, wait_step_[slot]);
      return waited;
    }
    if (t_.events(l).kind[e] == EventKind::kRecv || g_.MemberEndingAt(l, e) != UINT32_MAX) {
      const TimeNs waited = measured_.Wait(l, e);
      Add(wait_step_[slot], waited);
      return waited;
    }
    return 0;
  }

  // The late location's path, cached while its waiters ask for it (path_cache.h).
  View LatePath(LocationId l, EventIndex from, EventIndex to) {
    return late_paths_.Get({l.value, from, to}, [&](Sparse& out) { Path(l, from, to, out); });
  }

  // A nested wait, replaced by its own explanation scaled to `waited` (its positive excess).
  void Expand(View c, TimeNs waited, uint32_t fallback) {
    TimeNs positive = 0;
    for (const auto& [s, ns] : c) positive += std::max<TimeNs>(0, ns);
    if (positive <= 0) {
      Add(fallback, waited);
      return;
    }
    TimeNs given = 0;
    for (const auto& [s, ns] : c) {
      if (ns <= 0) continue;
      const TimeNs part = static_cast<TimeNs>(static_cast<__int128>(waited) * ns / positive);
      Add(s, part);
      given += part;
    }
    Add(fallback, waited - given);  // rounding remainder stays a wait
  }

  // Wait k's characterisation (appended to char_pool_): the late path minus the waiter's path,
  // without the shared steps that do not matter (SPEC.md §7's 95 % rule).
  Range Explain(uint32_t k) {
    const WaitInstance& w = ws_.instances[k];
    const SyncPair sync = last_sync_[k];
    const EventIndex p_from = std::min(sync.waiter, w.waiter_from);
    const EventIndex q_to = w.late_arrival;
    const EventIndex q_from = std::min(sync.late, q_to);
    const View q = LatePath(w.late, q_from, q_to);
    Path(w.waiter, p_from, w.waiter_from, p_);
    if (!sync.synced && (origins_[w.late.value] || origins_[w.waiter.value])) return ExplainFromLaunches(w, q);
    Subtract(q, p_, c_);
    AddPropagated(w.late, q_from, t_.events(w.late).time[q_from] - t_.events(w.waiter).time[p_from]);
    DropSharedSteps(q, p_, w.wait_ns);
    return Store(char_pool_, c_);
  }

  // Two locations that never synchronised, one or both started by a launch (launch_origins.h):
  // each path from its first event is extended back over that launch to its launcher's start, so
  // a stream's late start reads as its launching thread's longer work before the launch.
  Range ExplainFromLaunches(const WaitInstance& w, View q) {
    qx_.assign(q.begin(), q.end());
    LocationId q_loc, p_loc;
    const TimeNs q_start = ExtendOverLaunch(w.late, qx_, q_loc), p_start = ExtendOverLaunch(w.waiter, p_, p_loc);
    Subtract(qx_, p_, c_);
    AddPropagated(q_loc, 0, q_start - p_start);
    DropSharedSteps(qx_, p_, w.wait_ns);
    return Store(char_pool_, c_);
  }

  // `path` (location l's from its first event) plus, when a launch started l, the launcher's path
  // from its first event to the launch and the launch's queueing (the call's Enter to l's first
  // event, in the call's step). Returns when the extended path starts; `from` is whose start it is.
  TimeNs ExtendOverLaunch(LocationId l, Sparse& path, LocationId& from) {
    from = l;
    const TimeNs start = t_.events(l).time[0];
    const std::optional<LaunchOrigin>& o = origins_[l.value];
    if (!o) return start;
    from = o->from;
    const TimeNs* launcher = t_.events(o->from).time.data();
    Path(o->from, 0, o->event, hop_);
    const TimeNs queued = start - launcher[o->event];
    if (queued != 0) {
      const Entry q{run_step_[SlotAfter(t_.index().nesting(o->from), o->event)], queued};
      AddInto(hop_, View(&q, 1), merge_scratch_);
    }
    AddInto(path, hop_, merge_scratch_);
    return launcher[0];
  }

  // c_ += the propagated step: `behind` ns later than the waiter, the late location left its
  // event q_from (the step's region: the call it was in there).
  void AddPropagated(LocationId late, EventIndex q_from, TimeNs behind) {
    if (behind == 0) return;
    const uint32_t slot = slot8_.empty() ? SlotAfter(t_.index().nesting(late), q_from) : slot8_[g_.offset(late) + q_from];
    const uint32_t step = slot * kStepStates + static_cast<uint32_t>(StepState::kPropagated);
    auto it = std::lower_bound(c_.begin(), c_.end(), Entry(step, std::numeric_limits<TimeNs>::min()));
    if (it != c_.end() && it->first == step) {
      it->second += behind;
    } else {
      c_.insert(it, Entry(step, behind));
    }
  }

  // Drops from c_ the steps both paths share, smallest difference first, while >= 95 % of the
  // wait remains explained.
  void DropSharedSteps(View q, View p, TimeNs wait_ns) {
    shared_.clear();  // |diff|, step
    for (size_t i = 0, j = 0; i < q.size() && j < p.size();) {
      if (q[i].first < p[j].first) ++i;
      else if (p[j].first < q[i].first) ++j;
      else {
        shared_.push_back({std::llabs(q[i].second - p[j].second), q[i].first});
        ++i;
        ++j;
      }
    }
    if (shared_.empty()) return;
    std::sort(shared_.begin(), shared_.end());
    TimeNs remaining = 0;
    for (const auto& [s, ns] : c_) remaining += ns;
    const TimeNs keep = static_cast<TimeNs>(std::ceil(o_.keep_fraction * static_cast<double>(wait_ns)));
    dropped_.assign(c_.size(), false);
    bool any = false;
    for (const auto& [abs_diff, step] : shared_) {
      auto it = std::lower_bound(c_.begin(), c_.end(), Entry(step, std::numeric_limits<TimeNs>::min()));
      const bool present = it != c_.end() && it->first == step;
      const TimeNs diff = present ? it->second : 0;
      if (remaining - diff < keep) continue;
      remaining -= diff;
      if (present) dropped_[it - c_.begin()] = any = true;
    }
    if (!any) return;
    size_t kept = 0;
    for (size_t i = 0; i < c_.size(); ++i)
      if (!dropped_[i]) c_[kept++] = c_[i];
    c_.resize(kept);
  }

  // Per step, its share of the characterisation's absolute total.
  void Shares(View c, grainscope::Shares& out) const {
    out.clear();
    TimeNs total = 0;
    for (const auto& [s, ns] : c) total += std::llabs(ns);
    if (total <= 0) return;
    for (const auto& [s, ns] : c) out.push_back({s, static_cast<double>(std::llabs(ns)) / static_cast<double>(total)});
  }

  void Classify(SyncPointClasses& sp, View c, TimeNs wait) {
    Shares(c, shares_);
    ClassState& state = class_state_[sp.sync_point];
    const size_t chosen = state.search.First(shares_, o_.threshold, buckets_);
    if (chosen == sp.classes.size()) {
      sp.classes.emplace_back();
      state.search.Add(shares_, buckets_);
      state.sums.emplace_back();
    }
    WaitClass& wc = sp.classes[chosen];
    wc.count++;
    wc.wait_ns += wait;
    AddInto(state.sums[chosen], c, merge_scratch_);
  }

  // The wait's share of each excess step goes to the step's region; the propagated share is
  // already charged by the earlier waits that made the late location late (or lies before the
  // trace's first synchronisation), so only the excess since the last synchronisation is.
  void ChargeRootCause(View c, TimeNs wait, std::vector<TimeNs>& delay) const {
    TimeNs positive = 0;
    for (const auto& [s, ns] : c) positive += std::max<TimeNs>(0, ns);
    if (positive <= 0) return;
    for (const auto& [s, ns] : c)
      if (ns > 0 && s % kStepStates != static_cast<uint32_t>(StepState::kPropagated))
        delay[s / kStepStates] += static_cast<TimeNs>(static_cast<__int128>(wait) * ns / positive);
  }

  // Fills each class's steps and shares from the accumulated sums (before classes are sorted).
  void FillSteps(SyncPointClasses& sp) {
    const ClassState& state = class_state_[sp.sync_point];
    for (size_t i = 0; i < sp.classes.size(); ++i) {
      WaitClass& wc = sp.classes[i];
      TimeNs positive = 0;
      for (const auto& [s, ns] : state.sums[i]) {
        wc.steps.push_back({s / kStepStates + 1 == slots_ ? RegionId() : RegionId(s / kStepStates),
                            static_cast<StepState>(s % kStepStates), ns});
        positive += std::max<TimeNs>(0, ns);
      }
      std::stable_sort(wc.steps.begin(), wc.steps.end(), [](const Step& a, const Step& b) { return a.ns > b.ns; });
      for (const Step& st : wc.steps)
        wc.shares.push_back(positive > 0 ? static_cast<double>(std::max<TimeNs>(0, st.ns)) / positive : 0.0);
    }
  }

  const Trace& t_;
  const CallSites& cs_;
  const WaitStates& ws_;
  const CharacterizeOptions& o_;
  HbGraph g_;
  MeasuredWaits measured_;
  uint32_t slots_;
  std::vector<uint32_t> slot_of_;    // per region (and outside any): Slot's table
  std::vector<uint32_t> run_step_;   // per slot: the step of its time outside waiting
  std::vector<uint32_t> wait_step_;  // per slot: the step of waiting in it
  // Path accumulation: dense per step, with the steps touched so far.
  std::vector<TimeNs> scratch_;
  std::vector<TimeNs> plain_;  // PlainTime's sums per slot; all zero between calls
  std::vector<uint8_t> slot8_;  // per flat event: the slot of the segment after it (BuildCheckpoints)
  std::vector<uint32_t> touched_;
  std::vector<SyncPair> last_sync_;                             // per wait
  std::vector<std::vector<EventIndex>> blocking_;               // per location (KeepBlockingEvents)
  uint32_t every_ = 64;                                         // events between checkpoints
  std::vector<uint64_t> first_checkpoint_;                      // per location, into checkpoints_
  std::vector<TimeNs> checkpoints_;                             // per checkpoint, per slot
  Completions completions_;                                     // (flat event, wait), by event
  steps::Pool char_pool_;                                       // every characterisation
  std::vector<Range> chars_;                                    // per wait, in char_pool_
  LatePathCache late_paths_;
  // Scratch buffers reused by every wait.
  Sparse p_, c_, merge_scratch_, qx_, hop_;
  std::vector<std::optional<LaunchOrigin>> origins_;  // per location (launch_origins.h)
  std::vector<std::pair<TimeNs, uint32_t>> shared_;
  std::vector<bool> dropped_;
  grainscope::Shares shares_;
  struct ClassState {
    ClassSearch search;       // the classes' representatives
    std::vector<Sparse> sums;  // per class: members' steps added up, by step
  };
  std::vector<ClassState> class_state_;  // per sync point
  StepBuckets buckets_;
};

}  // namespace

Characterization Characterize(const Trace& trace, const CallSites& calls, const WaitStates& waits,
                              const CharacterizeOptions& options) {
  Characterizer c(trace, calls, waits, options);
  return c.Run();
}

}  // namespace grainscope
