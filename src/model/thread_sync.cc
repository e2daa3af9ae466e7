#include "model/thread_sync.h"

#include <algorithm>

#include <charconv>
#include <map>
#include <span>
#include <utility>
#include <unordered_map>

#include <fmt/format.h>

namespace grainscope {
namespace {

constexpr std::string_view kSyncKindNames[] = {
    "lock_request",  "lock_acquired", "lock_release",  "barrier_enter",     "barrier_leave",
    "cond_wait_begin",  "cond_wait_end", "cond_signal",   "cond_broadcast", "thread_create",    "thread_begin",
    "thread_end",       "thread_join_begin", "thread_join_end", "task_create", "task_begin", "task_end"};
static_assert(std::size(kSyncKindNames) == kSyncKindCount);

// A sync event where it happened.
struct At {
  TimeNs time;
  LocationId location;
  EventIndex event;
  SyncKind kind;
};

// Every sync event of the trace grouped by (object class, object): locks, conditions, barriers,
// threads and tasks each in their own name space (a lock and a task may share a number).
enum class ObjectClass : uint8_t { kLock, kCondition, kBarrier, kThread, kTask };
ObjectClass ClassOf(SyncKind k) {
  switch (k) {
    case SyncKind::kLockRequest:
    case SyncKind::kLockAcquired:
    case SyncKind::kLockRelease: return ObjectClass::kLock;
    case SyncKind::kBarrierEnter:
    case SyncKind::kBarrierLeave: return ObjectClass::kBarrier;
    case SyncKind::kCondWaitBegin:
    case SyncKind::kCondWaitEnd:
    case SyncKind::kCondSignal:
    case SyncKind::kCondBroadcast: return ObjectClass::kCondition;
    case SyncKind::kThreadCreate:
    case SyncKind::kThreadBegin:
    case SyncKind::kThreadEnd:
    case SyncKind::kThreadJoinBegin:
    case SyncKind::kThreadJoinEnd: return ObjectClass::kThread;
    default: return ObjectClass::kTask;
  }
}

void AddEdge(DependencyTable& t, DependencyKind kind, const At& from, const At& to) {
  t.kind.push_back(kind);
  t.from_location.push_back(from.location);
  t.from_event.push_back(from.event);
  t.to_location.push_back(to.location);
  t.to_event.push_back(to.event);
}

// Lock: each acquisition after the lock's previous release by another thread depends on it.
void LockEdges(std::span<const At> events, DependencyTable& out) {
  const At* last_release = nullptr;
  for (const At& e : events) {
    if (e.kind == SyncKind::kLockRelease) last_release = &e;
    if (e.kind == SyncKind::kLockAcquired && last_release != nullptr && last_release->location != e.location)
      AddEdge(out, DependencyKind::kLockHandover, *last_release, e);
  }
}

// Condition: a wait that returned was woken by the latest signal (or broadcast) of another thread
// between its begin and its end; a wait with none returned by itself (a timeout, a spurious wake).
void ConditionEdges(std::span<const At> events, DependencyTable& out) {
  std::unordered_map<uint32_t, TimeNs> wait_began;  // location -> its open wait's begin
  const At* last_signal = nullptr;
  for (const At& e : events) {
    if (e.kind == SyncKind::kCondSignal || e.kind == SyncKind::kCondBroadcast) last_signal = &e;
    if (e.kind == SyncKind::kCondWaitBegin) wait_began[e.location.value] = e.time;
    if (e.kind != SyncKind::kCondWaitEnd) continue;
    auto it = wait_began.find(e.location.value);
    const bool woken = it != wait_began.end() && last_signal != nullptr && last_signal->time >= it->second &&
                       last_signal->location != e.location;
    if (woken) AddEdge(out, DependencyKind::kConditionSignal, *last_signal, e);
    if (it != wait_began.end()) wait_began.erase(it);
  }
}

// Thread: create -> the child's begin, the child's end -> the join's end. One object may stand
// for a team (OpenMP: every thread of it begins and ends it; the join waits for them all), so
// every begin gets the create's edge and the join an edge from every end, each from another
// location (a team's master is one of its threads).
void ThreadEdges(std::span<const At> events, std::vector<const At*>& ends, DependencyTable& out) {
  const At* create = nullptr;
  ends.clear();  // the caller's, reused: an OpenMP run has a thread object per team
  for (const At& e : events) {
    if (e.kind == SyncKind::kThreadCreate) create = &e;
    if (e.kind == SyncKind::kThreadEnd) ends.push_back(&e);
  }
  for (const At& e : events) {
    if (e.kind == SyncKind::kThreadBegin && create != nullptr && create->location != e.location)
      AddEdge(out, DependencyKind::kFork, *create, e);
    if (e.kind != SyncKind::kThreadJoinEnd) continue;
    for (const At* end : ends)
      if (end->location != e.location) AddEdge(out, DependencyKind::kJoin, *end, e);
  }
}

void TaskEdges(std::span<const At> events, DependencyTable& out) {
  const At* create = nullptr;
  for (const At& e : events) {
    if (e.kind == SyncKind::kTaskCreate) create = &e;
    if (e.kind == SyncKind::kTaskBegin && create != nullptr) AddEdge(out, DependencyKind::kTaskCreate, *create, e);
  }
}

// Barrier instances of one object. With a participant count, arrivals in time order make
// instances of that many: no thread can arrive for the next instance before the last one arrived
// for this (it completes then), so the k-th group of arrivals is instance k, whichever threads
// they are. Without one, a thread's k-th arrival is in instance k. Each arrival's member leaves
// at the thread's next leave of the object.
// Per location state of Barriers, kept across objects (a trace may have many barrier objects, and
// hash maps per arrival cost BT-MZ's load 50 ms): reset for the locations an object touched.
struct BarrierScratch {
  explicit BarrierScratch(size_t locations)
      : leaves(locations), next_leave(locations, 0), arrived(locations, 0), seen(locations, 0) {}
  std::vector<const At*> arrivals;
  std::vector<std::vector<const At*>> leaves;  // per location, in time order
  std::vector<size_t> next_leave, arrived;     // per location
  std::vector<uint8_t> seen;                   // per location: in `touched`
  std::vector<uint32_t> touched;               // locations with state to reset
  std::vector<size_t> instance_of_k;           // without participants: k -> instance
  void Reset() {
    for (uint32_t l : touched) leaves[l].clear(), next_leave[l] = 0, arrived[l] = 0, seen[l] = 0;
    touched.clear();
    arrivals.clear();
    instance_of_k.clear();
  }
};

void Barriers(uint64_t object, std::span<const At> events, const SyncTable& syncs,
              std::span<const std::vector<uint32_t>> args, BarrierScratch& scratch, ThreadSync& out) {
  scratch.Reset();
  uint32_t participants = 0;
  for (const At& e : events) {
    const uint32_t l = e.location.value;
    if (!scratch.seen[l]) scratch.seen[l] = 1, scratch.touched.push_back(l);
    if (e.kind == SyncKind::kBarrierEnter) {
      scratch.arrivals.push_back(&e);
      participants = std::max(participants, syncs.arg[args[l][e.event]]);
    } else {
      scratch.leaves[l].push_back(&e);
    }
  }
  for (size_t a = 0; a < scratch.arrivals.size(); ++a) {
    const At& e = *scratch.arrivals[a];
    size_t instance;
    if (participants > 0) {
      instance = out.barriers.size() - (a % participants == 0 ? 0 : 1);
      if (a % participants == 0) {
        out.barriers.push_back({object, participants, {}});
        out.barriers.back().members.reserve(participants);
      }
    } else {
      const size_t k = scratch.arrived[e.location.value]++;
      if (k == scratch.instance_of_k.size()) {  // k grows by one per location: the first to get there adds it
        scratch.instance_of_k.push_back(out.barriers.size());
        out.barriers.push_back({object, 0, {}});
      }
      instance = scratch.instance_of_k[k];
    }
    const std::vector<const At*>& mine = scratch.leaves[e.location.value];
    size_t& n = scratch.next_leave[e.location.value];
    while (n < mine.size() && mine[n]->event < e.event) ++n;
    if (n == mine.size()) {
      out.never_left.push_back({instance, e.location, e.event});
      continue;
    }
    out.barriers[instance].members.push_back({e.location, e.event, mine[n++]->event});
  }
}

// Events at one time: what enables (a release, a signal, a create, an end) before what it
// enables, so that a hand-over stamped with one clock value keeps its order.
bool Enables(SyncKind k) {
  switch (k) {
    case SyncKind::kLockRelease:
    case SyncKind::kCondSignal:
    case SyncKind::kCondBroadcast:
    case SyncKind::kThreadCreate:
    case SyncKind::kThreadEnd:
    case SyncKind::kTaskCreate:
    case SyncKind::kBarrierEnter: return true;
    default: return false;
  }
}

// An object's events in time order, ties: what enables first, then as filled (by location, then
// event). Most objects are a team's few events: sorted by insertion, without stable_sort's buffer.
void SortInTime(std::span<At> events) {
  auto before = [](const At& a, const At& b) {
    if (a.time != b.time) return a.time < b.time;
    return Enables(a.kind) && !Enables(b.kind);
  };
  if (events.size() > 32) {
    std::stable_sort(events.begin(), events.end(), before);
    return;
  }
  for (size_t i = 1; i < events.size(); ++i) {
    const At moving = events[i];
    size_t j = i;
    for (; j > 0 && before(moving, events[j - 1]); --j) events[j] = events[j - 1];
    events[j] = moving;
  }
}

}  // namespace

std::string_view SyncKindName(SyncKind kind) {
  const auto k = static_cast<uint8_t>(kind);
  return k < kSyncKindCount ? kSyncKindNames[k] : "?";
}

bool ParseSyncKind(std::string_view name, SyncKind* kind) {
  for (uint8_t k = 0; k < kSyncKindCount; ++k) {
    if (kSyncKindNames[k] == name) {
      *kind = static_cast<SyncKind>(k);
      return true;
    }
  }
  return false;
}

std::string ThreadBarrierName(uint64_t object) { return fmt::format("barrier {:x}", object); }

std::optional<uint64_t> ThreadBarrierObject(std::string_view name) {
  constexpr std::string_view kPrefix = "barrier ";
  if (!name.starts_with(kPrefix) || name.size() == kPrefix.size()) return std::nullopt;
  name.remove_prefix(kPrefix.size());
  uint64_t object = 0;
  if (std::from_chars(name.data(), name.data() + name.size(), object, 16).ptr != name.data() + name.size())
    return std::nullopt;
  return object;
}

std::string SyncLabel(SyncKind kind, uint64_t object, uint32_t arg) {
  return fmt::format("{}{} {:x} {}", kSyncLabelPrefix, SyncKindName(kind), object, arg);
}

std::optional<ParsedSync> ParseSyncLabel(std::string_view label) {
  if (!label.starts_with(kSyncLabelPrefix)) return std::nullopt;
  label.remove_prefix(kSyncLabelPrefix.size());
  const size_t a = label.find(' ');
  if (a == std::string_view::npos) return std::nullopt;
  const size_t b = label.find(' ', a + 1);
  if (b == std::string_view::npos) return std::nullopt;
  ParsedSync p;
  if (!ParseSyncKind(label.substr(0, a), &p.kind)) return std::nullopt;
  const std::string_view object = label.substr(a + 1, b - a - 1), arg = label.substr(b + 1);
  if (std::from_chars(object.data(), object.data() + object.size(), p.object, 16).ptr != object.data() + object.size() ||
      object.empty()) {
    return std::nullopt;
  }
  if (std::from_chars(arg.data(), arg.data() + arg.size(), p.arg).ptr != arg.data() + arg.size() || arg.empty())
    return std::nullopt;
  return p;
}

ThreadSync FindThreadSync(const SyncTable& syncs, std::span<const std::vector<EventKind>> kinds,
                          std::span<const std::vector<uint32_t>> args, std::span<const std::vector<TimeNs>> times) {
  ThreadSync out;
  // Every object's events in time order (ties: location, then event order), objects in order of
  // first appearance (the result does not depend on a hash order). A counting sort into one flat
  // array: a trace with hundreds of thousands of objects (an OpenMP team per parallel region) must
  // not pay a vector, and millions of barrier entries not vectors' doubling slack.
  std::unordered_map<uint64_t, uint32_t> index[5];
  std::vector<std::pair<ObjectClass, uint64_t>> objects;
  std::vector<uint32_t> object_of_row(syncs.size());
  std::vector<uint32_t> first;  // per object: its first slot in `flat`; then its next free slot
  for (uint32_t row = 0; row < syncs.size(); ++row) {
    const ObjectClass c = ClassOf(syncs.kind[row]);
    auto [it, added] = index[static_cast<int>(c)].try_emplace(syncs.object[row], static_cast<uint32_t>(objects.size()));
    if (added) {
      objects.emplace_back(c, syncs.object[row]);
      first.push_back(0);
    }
    object_of_row[row] = it->second;
    ++first[it->second];
  }
  for (auto& map : index) std::unordered_map<uint64_t, uint32_t>().swap(map);
  uint32_t offset = 0;
  for (uint32_t& f : first) offset += std::exchange(f, offset);
  first.push_back(offset);
  std::vector<uint32_t> fill(first.begin(), first.end() - 1);
  std::vector<At> flat(offset);
  for (uint32_t l = 0; l < kinds.size(); ++l) {
    for (EventIndex e = 0; e < kinds[l].size(); ++e) {
      if (kinds[l][e] != EventKind::kSync) continue;
      const uint32_t row = args[l][e];
      flat[fill[object_of_row[row]]++] = {times[l][e], LocationId(l), e, syncs.kind[row]};
    }
  }
  std::vector<uint32_t>().swap(object_of_row);
  std::vector<uint32_t>().swap(fill);
  std::vector<const At*> ends;
  BarrierScratch barrier_scratch(kinds.size());
  for (size_t o = 0; o < objects.size(); ++o) {
    const std::span<At> events(flat.data() + first[o], first[o + 1] - first[o]);
    SortInTime(events);
    switch (objects[o].first) {
      case ObjectClass::kLock: LockEdges(events, out.edges); break;
      case ObjectClass::kCondition: ConditionEdges(events, out.edges); break;
      case ObjectClass::kThread: ThreadEdges(events, ends, out.edges); break;
      case ObjectClass::kTask: TaskEdges(events, out.edges); break;
      case ObjectClass::kBarrier: Barriers(objects[o].second, events, syncs, args, barrier_scratch, out); break;
    }
  }
  return out;
}

}  // namespace grainscope
