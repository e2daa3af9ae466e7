#include "analysis/waits/wait_states.h"

#include <algorithm>
#include <map>
#include <tuple>

#include <fmt/format.h>

#include "model/rendezvous.h"
#include "model/trace_index.h"

namespace grainscope {

std::string_view WaitKindName(WaitKind k) {
  switch (k) {
    case WaitKind::kLateSender: return "late_sender";
    case WaitKind::kLateReceiver: return "late_receiver";
    case WaitKind::kWaitAtBarrier: return "wait_at_barrier";
    case WaitKind::kWaitAtNxN: return "wait_at_nxn";
    case WaitKind::kLateBroadcast: return "late_broadcast";
    case WaitKind::kEarlyReduce: return "early_reduce";
    case WaitKind::kBarrierCompletion: return "barrier_completion";
    case WaitKind::kLockContention: return "lock_contention";
    case WaitKind::kConditionWait: return "condition_wait";
    case WaitKind::kJoinWait: return "join_wait";
    case WaitKind::kDependencyWait: return "dependency_wait";
    case WaitKind::kEarlyScan: return "early_scan";
    case WaitKind::kLaunchWait: return "launch_wait";
  }
  return "unknown";
}

namespace {

class Finder {
 public:
  Finder(const Trace& t, const CallSites& cs, const WaitStateOptions& o)
      : t_(t), g_(t, HbStructure::kCollectives), cs_(cs), o_(o), rendezvous_(RendezvousMessages(t)) {}

  WaitStates Run() {
    out_.eager_limit_bytes = o_.eager_limit_bytes;
    out_.eager_limit_source = o_.eager_limit_source;
    PointToPoint();
    Collectives();
    ThreadWaits();
    std::stable_sort(out_.instances.begin(), out_.instances.end(), [](const WaitInstance& a, const WaitInstance& b) {
      return std::tie(a.start_ns, a.waiter, a.waiter_event) < std::tie(b.start_ns, b.waiter, b.waiter_event);
    });
    // A sync point is a call in its caller (and a message name). Waits in no call (a thread's
    // sync events outside any call region) are told apart by their kind.
    std::map<std::tuple<uint32_t, uint32_t, uint32_t, int>, uint32_t> points;
    out_.by_location.assign(t_.locations().size(), 0);
    out_.by_region.assign(t_.regions().size() + 1, 0);
    for (WaitInstance& w : out_.instances) {
      out_.by_location[w.waiter.value] += w.wait_ns;
      out_.by_region[w.call.valid() ? w.call.value : t_.regions().size()] += w.wait_ns;
      const StringId name = w.message != UINT32_MAX ? t_.messages().name[w.message] : StringId(0);
      const int kind = w.call.valid() ? -1 : static_cast<int>(w.kind);
      auto [it, added] = points.emplace(std::make_tuple(w.call.value, w.caller.value, name.value, kind),
                                        static_cast<uint32_t>(out_.sync_points.size()));
      if (added) out_.sync_points.push_back({w.call, w.caller, name, Label(w.call, w.caller, name, w.kind)});
      w.sync_point = it->second;
      out_.count[static_cast<int>(w.kind)]++;
      out_.time_ns[static_cast<int>(w.kind)] += w.wait_ns;
      out_.total_ns += w.wait_ns;
    }
    return std::move(out_);
  }

 private:
  TimeNs Time(LocationId l, EventIndex e) const { return t_.events(l).time[e]; }

  // "caller > call", or "caller > (kind)" for a wait in no call: "pthread_join > (join_wait)".
  std::string Label(RegionId call, RegionId caller, StringId name, WaitKind kind) const {
    std::string s = caller.valid() ? std::string(t_.str(t_.region(caller).name)) : "(top level)";
    s += " > ";
    s += call.valid() ? std::string(t_.str(t_.region(call).name)) : fmt::format("({})", WaitKindName(kind));
    if (name.value != 0) s += fmt::format(" '{}'", t_.str(name));
    return s;
  }

  void PointToPoint() {
    const MessageTable& msgs = t_.messages();
    std::vector<WaitInstance> late_senders;
    for (uint32_t m = 0; m < msgs.size(); ++m) {
      if (!msgs.matched(MessageId(m))) continue;
      const LocationId s = msgs.sender[m], r = msgs.receiver[m];
      const CallSite& sc = cs_.send[m];
      const CallSite& rc = cs_.recv[m];
      const TimeNs send_enter = Time(s, sc.enter), send_leave = Time(s, sc.leave);
      const TimeNs recv_enter = Time(r, rc.enter), recv_leave = Time(r, rc.leave);
      const TimeNs ls = std::min(send_enter, recv_leave) - recv_enter;
      if (ls > 0) {
        late_senders.push_back({WaitKind::kLateSender, r, s, rc.enter, msgs.recv_event[m], sc.enter, recv_enter, ls,
                                rc.call, rc.caller, 0, m});
      }
      if (rendezvous_[m] && send_leave > recv_enter) {
        const TimeNs lr = std::min(recv_enter, send_leave) - send_enter;
        if (lr > 0) {
          out_.instances.push_back({WaitKind::kLateReceiver, s, r, sc.enter, msgs.send_event[m], rc.enter, send_enter,
                                    lr, sc.call, sc.caller, 0, m});
        }
      }
    }
    // One call completing several receives (waitall) is charged only its largest wait.
    std::stable_sort(late_senders.begin(), late_senders.end(), [](const WaitInstance& a, const WaitInstance& b) {
      if (a.waiter != b.waiter) return a.waiter < b.waiter;
      if (a.waiter_from != b.waiter_from) return a.waiter_from < b.waiter_from;
      return a.wait_ns > b.wait_ns;
    });
    for (size_t i = 0; i < late_senders.size(); ++i) {
      const WaitInstance& w = late_senders[i];
      const bool same_call = i > 0 && late_senders[i - 1].waiter == w.waiter &&
                             late_senders[i - 1].waiter_from == w.waiter_from && w.call.valid();
      if (!same_call) out_.instances.push_back(w);
    }
  }

  void Collectives() {
    const CollectiveTable& coll = t_.collectives();
    for (uint32_t c = 0; c < coll.size(); ++c) {
      const uint32_t first = coll.first_member[c], last = coll.first_member[c + 1];
      if (first == last) continue;
      // A member arrives when it enters the call that starts the collective; it waits from the
      // call that completes it (the same call, unless the collective is non-blocking) until that
      // call's leave.
      auto arrival = [&](uint32_t k) { return Time(coll.member_location[k], cs_.member[k].enter); };
      auto from = [&](uint32_t k) { return Time(coll.member_location[k], cs_.member_end[k].enter); };
      auto leave = [&](uint32_t k) { return Time(coll.member_location[k], cs_.member_end[k].leave); };
      uint32_t latest = first;
      TimeNs earliest_leave = leave(first);
      for (uint32_t k = first; k < last; ++k) {
        if (arrival(k) > arrival(latest)) latest = k;
        earliest_leave = std::min(earliest_leave, leave(k));
      }
      const CollectiveFlow flow = g_.flow(CollectiveId(c));
      if (flow.shape == CollectiveShape::kAllToAll) {
        const WaitKind kind = coll.op[c] == CollectiveOp::kBarrier ? WaitKind::kWaitAtBarrier : WaitKind::kWaitAtNxN;
        for (uint32_t k = first; k < last; ++k) {
          Add(kind, k, latest, std::min(arrival(latest), leave(k)) - from(k));
          Add(WaitKind::kBarrierCompletion, k, UINT32_MAX,
              leave(k) - std::max({earliest_leave, arrival(latest), from(k)}));
        }
      } else if (flow.shape == CollectiveShape::kPrefix) {
        // Scalasca's early scan: a member waits for the last of the lower ranks to arrive.
        uint32_t last_lower = UINT32_MAX;
        for (uint32_t p = 0; p + 1 < last - first; ++p) {
          const uint32_t k = g_.member_at(CollectiveId(c), p), next = g_.member_at(CollectiveId(c), p + 1);
          if (last_lower == UINT32_MAX || arrival(k) > arrival(last_lower)) last_lower = k;
          Add(WaitKind::kEarlyScan, next, last_lower, std::min(arrival(last_lower), leave(next)) - from(next));
        }
      } else if (flow.shape == CollectiveShape::kOneToAll) {
        for (uint32_t k = first; k < last; ++k)
          if (flow.EndWaits(k)) Add(WaitKind::kLateBroadcast, k, flow.root, std::min(arrival(flow.root), leave(k)) - from(k));
      } else {  // all-to-one: the root waits for the last sender
        uint32_t last_sender = UINT32_MAX;
        for (uint32_t k = first; k < last; ++k)
          if (k != flow.root && flow.Feeds(k, flow.root) && (last_sender == UINT32_MAX || arrival(k) > arrival(last_sender)))
            last_sender = k;
        if (last_sender != UINT32_MAX)
          Add(WaitKind::kEarlyReduce, flow.root, last_sender,
              std::min(arrival(last_sender), leave(flow.root)) - from(flow.root));
      }
    }
  }

  // A kind of edge whose target's wait is a dependency_wait: one that waits (DependencyTargetWaits)
  // and that ThreadWaits does not measure as a thread wait of its own, a launch or a rendezvous.
  static bool MeasuredAsDependencyWait(DependencyKind k) {
    switch (k) {
      case DependencyKind::kLockHandover:
      case DependencyKind::kConditionSignal:
      case DependencyKind::kJoin:
      case DependencyKind::kRendezvous:
      case DependencyKind::kGpuLaunch: return false;
      default: return DependencyTargetWaits(k);
    }
  }

  // Waits of threads (header): per edge into an acquisition, a wait's end or a join's end, the
  // waiter's matching begin (its request, wait begin or join begin of the same object) before it.
  void ThreadWaits() {
    const DependencyTable& d = t_.dependencies();
    const SyncTable& st = t_.syncs();
    const std::vector<bool> latest = LatestEdgeIntoEachTarget();
    for (size_t r = 0; r < d.size(); ++r) {
      WaitKind kind;
      SyncKind begin_kind;
      switch (d.kind[r]) {
        case DependencyKind::kLockHandover: kind = WaitKind::kLockContention, begin_kind = SyncKind::kLockRequest; break;
        case DependencyKind::kConditionSignal: kind = WaitKind::kConditionWait, begin_kind = SyncKind::kCondWaitBegin; break;
        case DependencyKind::kJoin: kind = WaitKind::kJoinWait, begin_kind = SyncKind::kThreadJoinBegin; break;
        case DependencyKind::kRendezvous: continue;  // late_receiver, from the message
        case DependencyKind::kGpuLaunch: DependencyWait(r, WaitKind::kLaunchWait); continue;
        default:
          if (MeasuredAsDependencyWait(d.kind[r]) && latest[r]) DependencyWait(r, WaitKind::kDependencyWait);
          continue;
      }
      const LocationId waiter = d.to_location[r];
      const EventColumns& ev = t_.events(waiter);
      const EventIndex end = d.to_event[r];
      if (ev.kind[end] != EventKind::kSync) continue;
      const uint64_t object = st.object[ev.arg[end]];
      EventIndex begin = end;
      while (begin-- > 0) {
        if (ev.kind[begin] != EventKind::kSync || st.object[ev.arg[begin]] != object) continue;
        const SyncKind k = st.kind[ev.arg[begin]];
        // An OpenMP master's join begins at its own end of the team (sync_table.h).
        if (k == begin_kind || (begin_kind == SyncKind::kThreadJoinBegin && k == SyncKind::kThreadEnd && st.arg[ev.arg[begin]] == 1)) break;
      }
      if (begin == kNoEvent) continue;  // no begin recorded: nothing to measure from
      const TimeNs wait = std::min(Time(d.from_location[r], d.from_event[r]), ev.time[end]) - ev.time[begin];
      if (wait <= 0) continue;
      const CallNesting nesting = t_.index().nesting(waiter);
      WaitInstance w{kind, waiter, d.from_location[r], begin, end, d.from_event[r], ev.time[begin], wait,
                     RegionId(), nesting.RegionAfter(begin)};
      out_.instances.push_back(w);
    }
  }

  // Per dependency row: is it the latest edge into its target event (by its source's time, the
  // lowest row on a tie)? A device synchronise has an edge from every stream: it waited once, for
  // the last of them, not once per stream. Only the rows DependencyWait measures are looked at
  // (a trace's thread edges run to millions, and each is its own wait).
  std::vector<bool> LatestEdgeIntoEachTarget() const {
    const DependencyTable& d = t_.dependencies();
    std::vector<bool> latest(d.size(), true);
    std::map<std::pair<uint32_t, EventIndex>, uint32_t> best;  // target -> row
    for (uint32_t r = 0; r < d.size(); ++r) {
      if (!MeasuredAsDependencyWait(d.kind[r])) continue;
      auto [it, added] = best.try_emplace({d.to_location[r].value, d.to_event[r]}, r);
      if (added) continue;
      const uint32_t other = it->second;
      if (Time(d.from_location[r], d.from_event[r]) > Time(d.from_location[other], d.from_event[other])) {
        latest[other] = false;
        it->second = r;
      } else {
        latest[r] = false;
      }
    }
    return latest;
  }

  // Dependency row r of a kind the thread waits above do not name: its target waited from its
  // previous event until the source (the blocking segment's wait, measured_waits.h); for a launch,
  // the stream idled so (`kind` kLaunchWait).
  void DependencyWait(uint32_t r, WaitKind kind) {
    const DependencyTable& d = t_.dependencies();
    const LocationId waiter = d.to_location[r];
    const EventIndex end = d.to_event[r];
    if (end == 0 || waiter == d.from_location[r]) return;
    const EventColumns& ev = t_.events(waiter);
    const TimeNs wait = std::min(Time(d.from_location[r], d.from_event[r]), ev.time[end]) - ev.time[end - 1];
    if (wait <= 0) return;
    const CallNesting nesting = t_.index().nesting(waiter);
    const EventIndex call = nesting.OpenAfter(end - 1);
    const RegionId caller = call == kNoEvent ? RegionId() : nesting.RegionOf(nesting.Parent(call));
    out_.instances.push_back({kind, waiter, d.from_location[r], end - 1, end, d.from_event[r],
                              ev.time[end - 1], wait, nesting.RegionOf(call), caller});
  }

  void Add(WaitKind kind, uint32_t k, uint32_t late, TimeNs wait) {
    if (wait <= 0) return;
    const CollectiveTable& coll = t_.collectives();
    const CallSite& site = cs_.member_end[k];
    WaitInstance w{kind, coll.member_location[k],
                   late == UINT32_MAX ? LocationId() : coll.member_location[late],
                   site.enter, coll.member_end[k],
                   late == UINT32_MAX ? kNoEvent : cs_.member[late].enter,
                   Time(coll.member_location[k], site.enter), wait, site.call, site.caller};
    w.member = k;
    if (kind == WaitKind::kBarrierCompletion) w.start_ns = Time(coll.member_location[k], site.leave) - wait;
    out_.instances.push_back(w);
  }

  const Trace& t_;
  const HbGraph g_;
  const CallSites& cs_;
  const WaitStateOptions& o_;
  // Per message: a rendezvous send, as the model decided it (rendezvous.h), not a rule of its own.
  const std::vector<uint8_t> rendezvous_;
  WaitStates out_;
};

}  // namespace

WaitStates FindWaitStates(const Trace& trace, const CallSites& calls, const WaitStateOptions& options) {
  return Finder(trace, calls, options).Run();
}

}  // namespace grainscope
