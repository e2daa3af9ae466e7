// Synchronisation between threads (issue 21): what a thread's sync events say, and the
// happens-before structure they make.
//
// A sync event (EventKind::kSync) is one row of the trace's SyncTable: its kind, the object it
// names (a lock's, barrier's or condition variable's address, a thread's or task's id) and an
// argument (a barrier's number of participants). Readers append them; TraceBuilder::Finish turns
// them into the structure every analysis already takes (FindThreadSync below):
//   lock:      release -> the next acquisition of the same lock by another thread   (lock_handover)
//   condition: signal / broadcast -> the end of a wait it can have woken             (condition_signal)
//   thread:    create (parent) -> begin (child); end (child) -> join end (parent)     (fork, join)
//   task:      create -> begin                                                        (task_create)
//   barrier:   a collective instance (op barrier, all-to-all) on the communicator "barrier <object>":
//              its enter events become kCollBegin, its leave events kCollEnd, so the sweeps, the
//              critical path and the wait states (wait at barrier, barrier completion) see it as
//              they see MPI_Barrier.
// Labels: formats without sync records of their own (Chrome markers; OTF2 markers for what OTF2's
// thread records cannot hold, docs/formats/otf2.md "Threads") carry an event as the text
// "sync.<kind> <object hex> <argument>" (SyncLabel), which their readers turn back into the event
// (ParseSyncLabel).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "model/dependencies.h"
#include "model/sync_table.h"
#include "model/trace.h"

namespace grainscope {

// What Finish derives from a trace's sync events.
struct ThreadSync {
  DependencyTable edges;
  // Barrier instances: per instance its object and members (location, enter event, leave event),
  // in arrival order. An instance whose members are fewer than its participants (the run ended
  // inside it) is kept with the members it has.
  struct Member {
    LocationId location;
    EventIndex enter = kNoEvent;
    EventIndex leave = kNoEvent;
  };
  struct Barrier {
    uint64_t object = 0;
    uint32_t participants = 0;
    std::vector<Member> members;
  };
  std::vector<Barrier> barriers;
  // Arrivals never left (the run ended inside the barrier, or the runtime never reported the
  // end): not members of their instance; the builder closes those it can (barrier_release.h).
  struct NeverLeft {
    size_t instance;
    LocationId location;
    EventIndex enter;
  };
  std::vector<NeverLeft> never_left;
};

// A sync object of process `process` in a trace of several processes: addresses and ids are each
// process's own (two processes may use the same ones for different locks), so the process's
// index + 1 goes into the top 16 bits; user-space addresses and runtimes' ids stay below 2^48.
inline uint64_t ProcessSyncObject(uint32_t process, uint64_t object) {
  return (object & ((uint64_t{1} << 48) - 1)) | (static_cast<uint64_t>(process + 1) << 48);
}

// The communicator a thread barrier's instances are on: "barrier <object hex>"; and back.
std::string ThreadBarrierName(uint64_t object);
std::optional<uint64_t> ThreadBarrierObject(std::string_view communicator_name);

// `kinds`, `args` and `times` per location, as the builder holds them.
ThreadSync FindThreadSync(const SyncTable& syncs, std::span<const std::vector<EventKind>> kinds,
                          std::span<const std::vector<uint32_t>> args, std::span<const std::vector<TimeNs>> times);

}  // namespace grainscope
