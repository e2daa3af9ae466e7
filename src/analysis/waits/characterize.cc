#include "analysis/waits/characterize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/replay/hb_graph.h"
#include "analysis/replay/measured_waits.h"

namespace grainscope {

std::string_view StepStateName(StepState s) {
  switch (s) {
    case StepState::kCompute: return "compute";
    case StepState::kCommunication: return "communication";
    case StepState::kCollective: return "collective";
    case StepState::kWait: return "wait";
  }
  return "unknown";
}

namespace {

// A path or characterisation: (step id, signed ns) sorted by step id. Step id = slot * states +
// state, with slot = region index, or the region count for "outside any region".
using Sparse = std::vector<std::pair<uint32_t, TimeNs>>;

Sparse Subtract(const Sparse& a, const Sparse& b) {
  Sparse out;
  size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) {
      out.push_back(a[i++]);
    } else if (i == a.size() || b[j].first < a[i].first) {
      out.push_back({b[j].first, -b[j].second});
      ++j;
    } else {
      if (a[i].second != b[j].second) out.push_back({a[i].first, a[i].second - b[j].second});
      ++i;
      ++j;
    }
  }
  return out;
}

class Characterizer {
 public:
  Characterizer(const Trace& t, const CallSites& cs, const WaitStates& ws, const CharacterizeOptions& o)
      : t_(t), cs_(cs), ws_(ws), o_(o), g_(t), measured_(g_), slots_(static_cast<uint32_t>(t.regions().size()) + 1),
        scratch_(slots_ * kStepStates, 0) {}

  Characterization Run() {
    FindLastSyncs();
    // Nested waits end before the wait that contains them: characterise in order of end time.
    std::vector<uint32_t> order;
    for (uint32_t k = 0; k < ws_.instances.size(); ++k)
      if (ws_.instances[k].late.valid()) order.push_back(k);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      const WaitInstance &x = ws_.instances[a], &y = ws_.instances[b];
      return std::make_tuple(x.start_ns + x.wait_ns, x.waiter) < std::make_tuple(y.start_ns + y.wait_ns, y.waiter);
    });
    chars_.resize(ws_.instances.size());
    for (uint32_t k : order) {
      const WaitInstance& w = ws_.instances[k];
      by_completion_[g_.flat(w.waiter, w.waiter_event)] = k;
    }
    Characterization out;
    std::map<uint32_t, SyncPointClasses> points;
    std::vector<TimeNs> delay(slots_, 0);
    for (uint32_t k : order) {
      chars_[k] = Explain(k);
      ++out.characterized;
      const WaitInstance& w = ws_.instances[k];
      SyncPointClasses& sp = points[w.sync_point];
      sp.sync_point = w.sync_point;
      sp.wait_ns += w.wait_ns;
      sp.count++;
      Classify(sp, chars_[k], w.wait_ns);
      ChargeRootCause(chars_[k], w.wait_ns, delay);
    }
    for (auto& [id, sp] : points) {
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
  };

  // For every wait, where the waiter and the late location last synchronised before it: one pass
  // per location keeping, per partner, the latest message exchanged and the latest collective.
  void FindLastSyncs() {
    const MessageTable& msgs = t_.messages();
    const CollectiveTable& coll = t_.collectives();
    last_sync_.resize(ws_.instances.size());
    std::vector<std::vector<uint32_t>> by_location(t_.locations().size());
    for (uint32_t k = 0; k < ws_.instances.size(); ++k)
      if (ws_.instances[k].late.valid()) by_location[ws_.instances[k].waiter.value].push_back(k);
    std::unordered_map<uint32_t, SyncPair> p2p;
    for (uint32_t l = 0; l < t_.locations().size(); ++l) {
      std::vector<uint32_t>& mine = by_location[l];
      std::sort(mine.begin(), mine.end(), [&](uint32_t a, uint32_t b) {
        return ws_.instances[a].waiter_from < ws_.instances[b].waiter_from;
      });
      const LocationId loc(l);
      const EventColumns& ev = t_.events(loc);
      p2p.clear();
      uint32_t last_member = UINT32_MAX;
      size_t next = 0;
      for (EventIndex e = 0; e <= ev.size() && next < mine.size(); ++e) {
        while (next < mine.size() && ws_.instances[mine[next]].waiter_from <= e) {
          const WaitInstance& w = ws_.instances[mine[next]];
          SyncPair best;
          if (auto it = p2p.find(w.late.value); it != p2p.end()) best = it->second;
          if (last_member != UINT32_MAX) {
            const uint32_t other = MemberOf(g_.instance_of(last_member), w.late);
            if (other != UINT32_MAX && coll.member_end[last_member] >= best.waiter)
              best = {coll.member_end[last_member], coll.member_end[other]};
          }
          last_sync_[mine[next++]] = best;
        }
        if (e == ev.size()) break;
        const uint32_t arg = ev.arg[e];
        if (ev.kind[e] == EventKind::kSend && msgs.recv_event[arg] != kNoEvent) {
          p2p[msgs.receiver[arg].value] = {e, msgs.recv_event[arg]};
        } else if (ev.kind[e] == EventKind::kRecv && msgs.send_event[arg] != kNoEvent) {
          p2p[msgs.sender[arg].value] = {e, msgs.send_event[arg]};
        } else if (ev.kind[e] == EventKind::kCollEnd) {
          const uint32_t m = g_.MemberEndingAt(loc, e);
          if (m != UINT32_MAX) last_member = m;
        }
      }
    }
  }

  uint32_t MemberOf(CollectiveId c, LocationId l) const {
    const CollectiveTable& coll = t_.collectives();
    auto first = coll.member_location.begin() + coll.first_member[c.value];
    auto last = coll.member_location.begin() + coll.first_member[c.value + 1];
    auto it = std::lower_bound(first, last, l);
    return it != last && *it == l ? static_cast<uint32_t>(it - coll.member_location.begin()) : UINT32_MAX;
  }

  uint32_t Slot(RegionId r) const { return r.valid() ? r.value : slots_ - 1; }

  StepState StateOf(RegionId r) const {
    if (!r.valid()) return StepState::kCompute;
    switch (t_.region(r).role) {
      case RegionRole::kPointToPoint:
      case RegionRole::kWait: return StepState::kCommunication;
      case RegionRole::kCollective: return StepState::kCollective;
      default: return StepState::kCompute;
    }
  }

  void Add(uint32_t step, TimeNs ns) {
    if (ns == 0) return;
    if (scratch_[step] == 0) touched_.push_back(step);
    scratch_[step] += ns;
  }

  // The steps of location l between events `from` and `to`: segments from -> from+1 ... to-1 -> to.
  // `cache`: late locations' paths repeat (every waiter of a barrier waits for the same one).
  Sparse Path(LocationId l, EventIndex from, EventIndex to, bool cache) {
    const auto key = std::make_tuple(l.value, from, to);
    if (cache)
      if (auto it = path_cache_.find(key); it != path_cache_.end()) return it->second;
    const EventColumns& ev = t_.events(l);
    const uint64_t base = g_.offset(l);
    touched_.clear();
    for (EventIndex e = from; e < to; ++e) {
      const RegionId r = cs_.innermost[base + e];
      TimeNs seg = ev.time[e + 1] - ev.time[e];
      const EventKind next = ev.kind[e + 1];
      if (next == EventKind::kRecv || next == EventKind::kCollEnd) {
        TimeNs waited = 0;
        if (auto it = by_completion_.find(base + e + 1); it != by_completion_.end()) {
          waited = std::min(seg, ws_.instances[it->second].wait_ns);
          Expand(chars_[it->second], waited, Slot(r) * kStepStates + static_cast<uint32_t>(StepState::kWait));
        } else if (next == EventKind::kRecv || g_.MemberEndingAt(l, e + 1) != UINT32_MAX) {
          waited = measured_.Wait(l, e + 1);
          Add(Slot(r) * kStepStates + static_cast<uint32_t>(StepState::kWait), waited);
        }
        seg -= waited;
      }
      Add(Slot(r) * kStepStates + static_cast<uint32_t>(StateOf(r)), seg);
    }
    Sparse out;
    out.reserve(touched_.size());
    for (uint32_t s : touched_) {
      if (scratch_[s] != 0) out.push_back({s, scratch_[s]});
      scratch_[s] = 0;
    }
    std::sort(out.begin(), out.end());
    if (cache) path_cache_.emplace(key, out);
    return out;
  }

  // A nested wait, replaced by its own explanation scaled to `waited` (its positive excess).
  void Expand(const Sparse& c, TimeNs waited, uint32_t fallback) {
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

  Sparse Explain(uint32_t k) {
    const WaitInstance& w = ws_.instances[k];
    const SyncPair sync = last_sync_[k];
    const EventIndex p_from = std::min(sync.waiter, w.waiter_from);
    const EventIndex q_to = w.late_arrival;
    const EventIndex q_from = std::min(sync.late, q_to);
    Sparse q = Path(w.late, q_from, q_to, /*cache=*/true);
    Sparse p = Path(w.waiter, p_from, w.waiter_from, /*cache=*/false);
    Sparse c = Subtract(q, p);
    // Drop steps both paths share, smallest difference first, while >= 95 % of the wait remains.
    std::vector<std::pair<TimeNs, uint32_t>> shared;  // |diff|, step
    for (size_t i = 0, j = 0; i < q.size() && j < p.size();) {
      if (q[i].first < p[j].first) ++i;
      else if (p[j].first < q[i].first) ++j;
      else {
        shared.push_back({std::llabs(q[i].second - p[j].second), q[i].first});
        ++i;
        ++j;
      }
    }
    std::sort(shared.begin(), shared.end());
    TimeNs remaining = 0;
    for (const auto& [s, ns] : c) remaining += ns;
    const TimeNs keep = static_cast<TimeNs>(std::ceil(o_.keep_fraction * static_cast<double>(w.wait_ns)));
    for (const auto& [abs_diff, step] : shared) {
      auto it = std::lower_bound(c.begin(), c.end(), std::make_pair(step, std::numeric_limits<TimeNs>::min()));
      const TimeNs diff = it != c.end() && it->first == step ? it->second : 0;
      if (remaining - diff < keep) continue;
      remaining -= diff;
      if (it != c.end() && it->first == step) c.erase(it);
    }
    return c;
  }

  static std::vector<std::pair<uint32_t, double>> Shares(const Sparse& c) {
    TimeNs total = 0;
    for (const auto& [s, ns] : c) total += std::llabs(ns);
    std::vector<std::pair<uint32_t, double>> out;
    for (const auto& [s, ns] : c)
      if (total > 0) out.push_back({s, static_cast<double>(std::llabs(ns)) / static_cast<double>(total)});
    return out;
  }

  // Stops counting once the distance reaches `limit`: only "closer than the threshold" matters.
  static double Distance(const std::vector<std::pair<uint32_t, double>>& a,
                         const std::vector<std::pair<uint32_t, double>>& b, double limit) {
    double d = 0;
    size_t i = 0, j = 0;
    while ((i < a.size() || j < b.size()) && d < limit) {
      if (j == b.size() || (i < a.size() && a[i].first < b[j].first)) d += a[i++].second;
      else if (i == a.size() || b[j].first < a[i].first) d += b[j++].second;
      else d += std::fabs(a[i++].second - b[j++].second);
    }
    return d;
  }

  void Classify(SyncPointClasses& sp, const Sparse& c, TimeNs wait) {
    const auto shares = Shares(c);
    std::vector<ClassState>& states = class_state_[sp.sync_point];
    size_t chosen = sp.classes.size();
    for (size_t i = 0; i < states.size(); ++i) {
      if (Distance(states[i].representative, shares, o_.threshold) < o_.threshold) {
        chosen = i;
        break;
      }
    }
    if (chosen == sp.classes.size()) {
      sp.classes.emplace_back();
      states.push_back({shares, {}});
    }
    WaitClass& wc = sp.classes[chosen];
    wc.count++;
    wc.wait_ns += wait;
    for (const auto& [s, ns] : c) states[chosen].sums[s] += ns;
  }

  void ChargeRootCause(const Sparse& c, TimeNs wait, std::vector<TimeNs>& delay) const {
    TimeNs positive = 0;
    for (const auto& [s, ns] : c) positive += std::max<TimeNs>(0, ns);
    if (positive <= 0) return;
    for (const auto& [s, ns] : c)
      if (ns > 0) delay[s / kStepStates] += static_cast<TimeNs>(static_cast<__int128>(wait) * ns / positive);
  }

 private:
  // Fills each class's steps and shares from the accumulated sums (before classes are sorted).
  void FillSteps(SyncPointClasses& sp) {
    std::vector<ClassState>& states = class_state_[sp.sync_point];
    for (size_t i = 0; i < sp.classes.size(); ++i) {
      WaitClass& wc = sp.classes[i];
      TimeNs positive = 0;
      for (const auto& [s, ns] : states[i].sums) {
        wc.steps.push_back({s / kStepStates + 1 == slots_ ? RegionId() : RegionId(s / kStepStates),
                            static_cast<StepState>(s % kStepStates), ns});
        positive += std::max<TimeNs>(0, ns);
      }
      std::stable_sort(wc.steps.begin(), wc.steps.end(), [](const Step& a, const Step& b) { return a.ns > b.ns; });
      for (const Step& st : wc.steps)
        wc.shares.push_back(positive > 0 ? static_cast<double>(std::max<TimeNs>(0, st.ns)) / positive : 0.0);
    }
  }

 private:
  const Trace& t_;
  const CallSites& cs_;
  const WaitStates& ws_;
  const CharacterizeOptions& o_;
  HbGraph g_;
  MeasuredWaits measured_;
  uint32_t slots_;
  std::vector<TimeNs> scratch_;
  std::vector<uint32_t> touched_;
  std::vector<SyncPair> last_sync_;
  std::vector<Sparse> chars_;
  std::unordered_map<uint64_t, uint32_t> by_completion_;
  std::map<std::tuple<uint32_t, EventIndex, EventIndex>, Sparse> path_cache_;
  struct ClassState {
    std::vector<std::pair<uint32_t, double>> representative;  // never changes
    std::map<uint32_t, TimeNs> sums;                           // members' steps added up
  };
  std::unordered_map<uint32_t, std::vector<ClassState>> class_state_;  // per sync point
};

}  // namespace

Characterization Characterize(const Trace& trace, const CallSites& calls, const WaitStates& waits,
                              const CharacterizeOptions& options) {
  Characterizer c(trace, calls, waits, options);
  return c.Run();
}

}  // namespace grainscope
