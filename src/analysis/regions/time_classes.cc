#include "analysis/regions/time_classes.h"

#include <algorithm>
#include <cctype>

#include "analysis/profile/grains.h"
#include "model/trace_index.h"

namespace grainscope {
namespace {

bool ContainsBarrier(std::string_view name) {
  constexpr std::string_view kWord = "barrier";
  if (name.size() < kWord.size()) return false;
  for (size_t i = 0; i + kWord.size() <= name.size(); ++i) {
    size_t k = 0;
    while (k < kWord.size() && std::tolower(static_cast<unsigned char>(name[i + k])) == kWord[k]) ++k;
    if (k == kWord.size()) return true;
  }
  return false;
}

// How a sync or collective event changes the number of blockings open on a thread: +1 where it
// starts waiting (a lock request, a condition wait, a join, a collective outside any call: a
// thread barrier), -1 where that ends.
int BlockingStep(const Trace& trace, EventKind kind, uint32_t arg) {
  if (kind == EventKind::kCollBegin) return 1;
  if (kind == EventKind::kCollEnd) return -1;
  if (kind != EventKind::kSync) return 0;
  switch (trace.syncs().kind[arg]) {
    case SyncKind::kLockRequest:
    case SyncKind::kCondWaitBegin:
    case SyncKind::kThreadJoinBegin: return 1;
    case SyncKind::kLockAcquired:
    case SyncKind::kCondWaitEnd:
    case SyncKind::kThreadJoinEnd: return -1;
    default: return 0;
  }
}

}  // namespace

std::string_view TimeClassName(TimeClass c) {
  switch (c) {
    case TimeClass::kComputation: return "computation";
    case TimeClass::kPointToPoint: return "point_to_point";
    case TimeClass::kCollective: return "collective";
    case TimeClass::kSynchronization: return "synchronization";
    case TimeClass::kOtherMpi: return "other_mpi";
    case TimeClass::kIdle: return "idle";
  }
  return "?";
}

TimeClass RegionTimeClass(const Trace& trace, RegionId region) {
  const Region& r = trace.region(region);
  const std::string_view name = trace.str(r.name);
  // Completion calls are waiting whatever role a format gives them (OTF2 writers differ).
  if (name.starts_with("MPI_Wait") || name.starts_with("MPI_Test")) return TimeClass::kSynchronization;
  switch (r.role) {
    case RegionRole::kPointToPoint: return TimeClass::kPointToPoint;
    case RegionRole::kCollective:
      return ContainsBarrier(name) ? TimeClass::kSynchronization : TimeClass::kCollective;
    case RegionRole::kWait: return TimeClass::kSynchronization;
    case RegionRole::kFunction:
    case RegionRole::kOther: return name.starts_with("MPI_") ? TimeClass::kOtherMpi : TimeClass::kComputation;
    case RegionRole::kGrain: return TimeClass::kComputation;
  }
  return TimeClass::kComputation;
}

TimeBreakdown ComputeTimeBreakdown(const Trace& trace) {
  TimeBreakdown out;
  out.span_ns = trace.end_ns() - trace.start_ns();
  std::vector<TimeClass> region_class;
  region_class.reserve(trace.regions().size());
  for (uint32_t r = 0; r < trace.regions().size(); ++r) region_class.push_back(RegionTimeClass(trace, RegionId(r)));
  const bool grains = HasGrainRegions(trace);
  std::vector<TimeClass> call_class;  // per Enter event: the class of the time inside that call
  for (uint32_t l = 0; l < trace.locations().size(); ++l) {
    LocationTime lt{LocationId(l)};
    const EventColumns& ev = trace.events(LocationId(l));
    auto add = [&](TimeClass c, TimeNs d) { lt.ns[static_cast<int>(c)] += d; };
    if (ev.size() == 0) {
      add(TimeClass::kIdle, out.span_ns);
    } else {
      const bool worker = trace.location(LocationId(l)).group != l;
      const TimeClass outside = worker || grains ? TimeClass::kIdle : TimeClass::kComputation;
      add(TimeClass::kIdle, ev.time[0] - trace.start_ns());
      add(TimeClass::kIdle, trace.end_ns() - ev.time.back());
      const CallNesting nesting = trace.index().nesting(LocationId(l));
      call_class.resize(ev.size());
      int blocked = 0;  // synchronisations open (BlockingStep); collectives in calls count as their call
      for (EventIndex i = 0; i < ev.size(); ++i) {
        if (i > 0) {
          const EventIndex open = nesting.OpenAfter(i - 1);
          TimeClass c = open == kNoEvent ? outside : call_class[open];
          if (blocked > 0 && (c == TimeClass::kComputation || c == TimeClass::kIdle)) c = TimeClass::kSynchronization;
          add(c, ev.time[i] - ev.time[i - 1]);
        }
        blocked = std::max(0, blocked + BlockingStep(trace, ev.kind[i], ev.arg[i]));
        if (ev.kind[i] != EventKind::kEnter) continue;
        // Inside a call, everything is the call's time; in code, the innermost region's.
        const EventIndex parent = nesting.Parent(i);
        call_class[i] = parent != kNoEvent && call_class[parent] != TimeClass::kComputation ? call_class[parent]
                                                                                            : region_class[ev.arg[i]];
      }
    }
    for (int c = 0; c < kTimeClassCount; ++c) out.total[c] += lt.ns[c];
    out.locations.push_back(lt);
  }
  return out;
}

}  // namespace grainscope
