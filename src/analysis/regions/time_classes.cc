#include "analysis/regions/time_classes.h"

#include <algorithm>
#include <array>
#include <functional>

#include "analysis/profile/grains.h"
#include "model/hb_graph.h"
#include "model/trace_index.h"

namespace grainscope {
namespace {

// How a sync or collective event changes the number of blockings open on a thread: +1 where it
// starts waiting (a lock request, a condition wait, a join, a collective outside any call: a
// thread barrier), with what it waits for, -1 where that ends.
struct BlockingStep {
  int step = 0;
  BlockCause cause = BlockCause::kBarrier;
};
BlockingStep StepOf(const Trace& trace, EventKind kind, uint32_t arg) {
  if (kind == EventKind::kCollBegin) return {1, BlockCause::kBarrier};
  if (kind == EventKind::kCollEnd) return {-1};
  if (kind != EventKind::kSync) return {};
  switch (trace.syncs().kind[arg]) {
    case SyncKind::kLockRequest: return {1, BlockCause::kLock};
    case SyncKind::kCondWaitBegin: return {1, BlockCause::kCondition};
    case SyncKind::kThreadJoinBegin: return {1, BlockCause::kJoin};
    case SyncKind::kLockAcquired:
    case SyncKind::kCondWaitEnd:
    case SyncKind::kThreadJoinEnd: return {-1};
    default: return {};
  }
}

// Event i begins a task of a team (a fork's child starts): the time before it, outside any
// region, the thread had no work -- a worker between parallel regions (model/barrier_release.h).
bool WaitsForWork(const Trace& trace, const EventColumns& ev, EventIndex i) {
  return ev.kind[i] == EventKind::kSync && trace.syncs().kind[ev.arg[i]] == SyncKind::kThreadBegin;
}

}  // namespace

std::string_view TimeClassName(TimeClass c) {
  switch (c) {
    case TimeClass::kComputation: return "computation";
    case TimeClass::kPointToPoint: return "point_to_point";
    case TimeClass::kCollective: return "collective";
    case TimeClass::kSynchronization: return "synchronization";
    case TimeClass::kOtherMpi: return "other_mpi";
    case TimeClass::kInitFinalize: return "init_finalize";
    case TimeClass::kThreadSync: return "thread_sync";
    case TimeClass::kGpu: return "gpu";
    case TimeClass::kIdle: return "idle";
  }
  return "?";
}

TimeClass RegionTimeClass(const Trace& trace, RegionId region) {
  const Region& r = trace.region(region);
  switch (r.role) {
    case RegionRole::kPointToPoint:
    case RegionRole::kOneSided: return TimeClass::kPointToPoint;
    case RegionRole::kCollective: return TimeClass::kCollective;
    case RegionRole::kBarrier: return IsMpiName(trace.str(r.name)) ? TimeClass::kSynchronization : TimeClass::kThreadSync;
    case RegionRole::kWait: return TimeClass::kSynchronization;
    case RegionRole::kMpiOther: return TimeClass::kOtherMpi;
    case RegionRole::kInitFinalize: return TimeClass::kInitFinalize;
    case RegionRole::kGpuKernel:
    case RegionRole::kGpuMemcpy:
    case RegionRole::kGpuMemset:
    case RegionRole::kCommCollective: return TimeClass::kGpu;
    // The host waiting for its device, a stream or an event (cudaStreamSynchronize): blocked, as
    // in a thread synchronisation, whether or not the trace has the edge it waits for.
    case RegionRole::kDeviceSync: return TimeClass::kThreadSync;
    // Threads' calls and OpenMP's constructs: what blocks in them the sync events say (the walk
    // below; an unlock or a create does not wait); the GPU runtime's calls: what waits in them
    // the dependency edges say.
    default: return TimeClass::kComputation;
  }
}

namespace {

// Walks a location's events and hands each stretch between consecutive events to
// `stretch(class, start, stop, cause, call, innermost)` (the class of the time there; for
// synchronisation, what blocked: the outermost open call, or the first of the open blockings;
// the innermost open region, if any). One walk for the breakdown, the region table's classes and
// the Gantt chart's spans, so all say the same.
// A location's incoming dependency ends (HbGraph::incoming), met in event order: where a stretch
// that would be computation was waiting for an edge's source.
class IncomingWaits {
 public:
  IncomingWaits(const HbGraph& g, LocationId l)
      : g_(g), l_(l), ev_(g.trace().events(l)), next_(g.incoming().first(l)) {
    Seek();
    if (at_ == 0) Next();  // an edge into the first event: no stretch before it waits
  }

  // The end of the waiting in the stretch before event e (e >= 1, called in increasing e), classed
  // `c`: when e is the target of edges whose kinds wait (DependencyTargetWaits) and the stretch
  // is computation, the latest of their sources (at most t(e)); else the stretch's start.
  TimeNs WaitingUntil(EventIndex e, TimeClass c) {
    TimeNs until = ev_.time[e - 1];
    if (e != at_) [[likely]] return until;
    if (c == TimeClass::kComputation) {
      const DependencyTable& d = g_.trace().dependencies();
      for (uint32_t r : g_.incoming().edges(next_))
        if (DependencyTargetWaits(d.kind[r]))
          until = std::max(until, g_.trace().events(d.from_location[r]).time[d.from_event[r]]);
    }
    Next();
    return std::min(until, ev_.time[e]);
  }

 private:
  void Seek() { at_ = next_ < g_.incoming().last(l_) ? g_.incoming().event(next_) : kNoEvent; }
  void Next() {
    ++next_;
    Seek();
  }

  const HbGraph& g_;
  LocationId l_;
  const EventColumns& ev_;
  uint32_t next_;
  EventIndex at_ = kNoEvent;
};

template <typename Stretch>
void WalkLocation(const HbGraph& g, LocationId l, const std::vector<TimeClass>& region_class, bool grains,
                  std::vector<TimeClass>& call_class, Stretch&& stretch) {
  const Trace& trace = g.trace();
  const EventColumns& ev = trace.events(l);
  if (ev.size() == 0) return;
  IncomingWaits incoming(g, l);
  const bool worker = trace.location(l).group != l.value;
  const bool stream = trace.location(l).kind == LocationKind::kGpuStream;
  const TimeClass outside = worker || grains || stream ? TimeClass::kIdle : TimeClass::kComputation;
  const CallNesting nesting = trace.index().nesting(l);
  call_class.resize(ev.size());
  int blocked = 0;  // synchronisations open (StepOf); collectives in calls count as their call
  BlockCause blocked_by = BlockCause::kBarrier;
  // A task a thread runs while it waits (in a barrier, a taskwait) is work: per running task, the
  // blockings open when it began; inside it only blockings beyond those count.
  std::vector<int> task_blocked;
  for (EventIndex i = 0; i < ev.size(); ++i) {
    if (i > 0) {
      const EventIndex open = nesting.OpenAfter(i - 1);
      TimeClass c = open == kNoEvent ? (WaitsForWork(trace, ev, i) ? TimeClass::kIdle : outside) : call_class[open];
      // A GPU stream works only in its kernels and copies: inside an annotation (Kineto's
      // gpu_user_annotation spans) but between kernels it is idle.
      if (stream && c == TimeClass::kComputation) c = TimeClass::kIdle;
      BlockCause cause = BlockCause::kCall;
      const int outer = task_blocked.empty() ? 0 : task_blocked.back();
      if (blocked > outer && (c == TimeClass::kComputation || c == TimeClass::kIdle)) {
        c = TimeClass::kThreadSync;
        cause = blocked_by;
      }
      RegionId call;
      if (cause == BlockCause::kCall && open != kNoEvent) {
        EventIndex outer = open;
        while (nesting.Parent(outer) != kNoEvent && call_class[nesting.Parent(outer)] == c) outer = nesting.Parent(outer);
        call = RegionId(ev.arg[outer]);
      }
      const RegionId innermost = open == kNoEvent ? RegionId() : RegionId(ev.arg[open]);
      // Computing, as far as the location's own events say, but waiting for an edge's source.
      TimeNs from = ev.time[i - 1];
      if (const TimeNs until = incoming.WaitingUntil(i, c); until > from) {
        stretch(TimeClass::kThreadSync, from, until, BlockCause::kDependency, RegionId(), innermost);
        from = until;
      }
      stretch(c, from, ev.time[i], cause, call, innermost);
    }
    if (ev.kind[i] == EventKind::kSync) {
      const SyncKind k = trace.syncs().kind[ev.arg[i]];
      if (k == SyncKind::kTaskBegin) task_blocked.push_back(blocked);
      if (k == SyncKind::kTaskEnd && !task_blocked.empty()) task_blocked.pop_back();
    }
    const BlockingStep step = StepOf(trace, ev.kind[i], ev.arg[i]);
    if (blocked == 0 && step.step > 0) blocked_by = step.cause;
    blocked = std::max(0, blocked + step.step);
    if (ev.kind[i] != EventKind::kEnter) continue;
    // Inside a call, everything is the call's time; in code, the innermost region's.
    const EventIndex parent = nesting.Parent(i);
    call_class[i] = parent != kNoEvent && call_class[parent] != TimeClass::kComputation ? call_class[parent]
                                                                                        : region_class[ev.arg[i]];
  }
}

std::vector<TimeClass> RegionClasses(const Trace& trace) {
  std::vector<TimeClass> region_class;
  region_class.reserve(trace.regions().size());
  for (uint32_t r = 0; r < trace.regions().size(); ++r) region_class.push_back(RegionTimeClass(trace, RegionId(r)));
  return region_class;
}

}  // namespace

TimeBreakdown ComputeTimeBreakdown(const Trace& trace) {
  TimeBreakdown out;
  out.span_ns = trace.end_ns() - trace.start_ns();
  const std::vector<TimeClass> region_class = RegionClasses(trace);
  const bool grains = HasGrainRegions(trace);
  const HbGraph g(trace, HbStructure::kIncoming);
  std::vector<TimeClass> call_class;  // per Enter event: the class of the time inside that call
  std::vector<std::array<TimeNs, kTimeClassCount>> by_region(trace.regions().size());  // exclusive time
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    LocationTime lt{LocationId(l)};
    auto add = [&](TimeClass c, TimeNs d) { lt.ns[static_cast<int>(c)] += d; };
    const EventColumns& ev = trace.events(LocationId(l));
    if (ev.size() == 0) {
      add(TimeClass::kIdle, out.span_ns);
    } else {
      add(TimeClass::kIdle, ev.time[0] - trace.start_ns());
      add(TimeClass::kIdle, trace.end_ns() - ev.time.back());
      WalkLocation(g, LocationId(l), region_class, grains, call_class,
                   [&](TimeClass c, TimeNs a, TimeNs b, BlockCause, RegionId, RegionId innermost) {
                     add(c, b - a);
                     if (innermost.valid()) by_region[innermost.value][static_cast<int>(c)] += b - a;
                   });
    }
    for (int c = 0; c < kTimeClassCount; ++c) out.total[c] += lt.ns[c];
    out.locations.push_back(lt);
  }
  out.region_class = region_class;
  for (size_t r = 0; r < by_region.size(); ++r) {
    const auto& ns = by_region[r];
    const auto most = std::max_element(ns.begin(), ns.end());
    if (*most > 0) out.region_class[r] = static_cast<TimeClass>(most - ns.begin());
  }
  return out;
}

void ForEachClassStretch(const Trace& trace,
                         const std::function<void(LocationId, TimeClass, TimeNs, TimeNs)>& stretch) {
  const std::vector<TimeClass> region_class = RegionClasses(trace);
  const bool grains = HasGrainRegions(trace);
  const HbGraph g(trace, HbStructure::kIncoming);
  std::vector<TimeClass> call_class;
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    WalkLocation(g, LocationId(l), region_class, grains, call_class,
                 [&](TimeClass c, TimeNs a, TimeNs b, BlockCause, RegionId, RegionId) {
                   if (b > a) stretch(LocationId(l), c, a, b);
                 });
  }
}

std::vector<std::vector<BlockedSpan>> ComputeBlockedSpans(const Trace& trace) {
  const std::vector<TimeClass> region_class = RegionClasses(trace);
  const bool grains = HasGrainRegions(trace);
  const HbGraph g(trace, HbStructure::kIncoming);
  std::vector<TimeClass> call_class;
  std::vector<std::vector<BlockedSpan>> out(trace.locations().size());
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    std::vector<BlockedSpan>& spans = out[l];
    WalkLocation(g, LocationId(l), region_class, grains, call_class,
                 [&](TimeClass c, TimeNs a, TimeNs b, BlockCause cause, RegionId call, RegionId) {
                   if (!IsBlocked(c) || b <= a) return;
                   if (!spans.empty() && spans.back().stop == a && spans.back().cause == cause && spans.back().call == call) {
                     spans.back().stop = b;
                   } else {
                     spans.push_back({a, b, cause, call});
                   }
                 });
  }
  return out;
}

std::string_view BlockedSpanCause(const Trace& trace, const BlockedSpan& s) {
  switch (s.cause) {
    case BlockCause::kCall: return s.call.valid() ? trace.str(trace.region(s.call).name) : "call";
    case BlockCause::kLock: return "lock";
    case BlockCause::kCondition: return "condition";
    case BlockCause::kJoin: return "join";
    case BlockCause::kBarrier: return "barrier";
    case BlockCause::kDependency: return "dependency";
  }
  return "?";
}

}  // namespace grainscope
