#include "format/otf2/otf2_location_reader.h"

namespace grainscope::otf2 {
namespace {

// The reader of a thread record's location, after its attributes; nullptr when grainscope wrote
// the record: it was read as exactly its sync event (ExactSync) and nothing is to be derived.
LocationReader* Derive(void* user, OTF2_AttributeList* attrs, OTF2_TimeStamp t, SyncKind kind) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  return r->ExactSync(t, kind) ? nullptr : r;
}

// OpenMP teams (Score-P): the master's k-th ThreadFork creates team k of its process, whose
// threads' k-th ThreadTeamBegin and ThreadTeamEnd begin and end it, and the master's ThreadJoin
// waits for them from its own team end (model/thread_sync.h: fork and join edges). One sync event
// per record, so the events reserved from the definitions' counts are enough. Nested teams
// of other sizes are numbered the same way and may pair wrongly.
OTF2_CallbackCode OnThreadFork(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                               OTF2_AttributeList* attrs, OTF2_Paradigm, uint32_t) {
  LocationReader* r = Derive(user, attrs, t, SyncKind::kThreadCreate);
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  const uint32_t k = r->forks++;
  r->forked.push_back(k);
  r->Sync(t, SyncKind::kThreadCreate, r->Team(k));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadJoin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                               OTF2_AttributeList* attrs, OTF2_Paradigm) {
  LocationReader* r = Derive(user, attrs, t, SyncKind::kThreadJoinEnd);
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  if (r->forked.empty()) return OTF2_CALLBACK_SUCCESS;  // a join of nothing forked here: nothing waits
  const uint32_t k = r->forked.back();
  r->forked.pop_back();
  r->Sync(t, SyncKind::kThreadJoinEnd, r->Team(k));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadTeamBegin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList* attrs, OTF2_CommRef) {
  LocationReader* r = Derive(user, attrs, t, SyncKind::kThreadBegin);
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  r->Sync(t, SyncKind::kThreadBegin, r->Team(r->team_begins++));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadTeamEnd(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                  OTF2_AttributeList* attrs, OTF2_CommRef) {
  LocationReader* r = Derive(user, attrs, t, SyncKind::kThreadEnd);
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  const uint32_t k = r->team_ends++;
  // The master's own end of its team: from here it waits for the others (argument 1: its join
  // begins, model/sync_table.h), without an event of its own.
  const bool master = !r->forked.empty() && r->forked.back() == k;
  r->Sync(t, SyncKind::kThreadEnd, r->Team(k), master ? 1 : 0);
  return OTF2_CALLBACK_SUCCESS;
}

// OTF2 1.x's OpenMP records (OmpFork ... OmpTaskComplete; Score-P 1.x): the same as their Thread*
// successors with the OpenMP paradigm.
OTF2_CallbackCode OnOmpFork(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void* user,
                            OTF2_AttributeList* attrs, uint32_t threads) {
  return OnThreadFork(l, t, pos, user, attrs, OTF2_PARADIGM_OPENMP, threads);
}
OTF2_CallbackCode OnOmpJoin(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void* user,
                            OTF2_AttributeList* attrs) {
  return OnThreadJoin(l, t, pos, user, attrs, OTF2_PARADIGM_OPENMP);
}

// Locks (Score-P: OpenMP locks and critical sections, pthread mutexes): the acquisition and the
// release. The request is the enter of the call the acquisition is recorded in (WaitBegan), so a
// contended lock's waiting is seen.
OTF2_CallbackCode OnThreadAcquireLock(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                      OTF2_AttributeList* attrs, OTF2_Paradigm, uint32_t lock, uint32_t) {
  LocationReader* r = Derive(user, attrs, t, SyncKind::kLockAcquired);  // grainscope's: its request is a marker
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  r->Wait(t, SyncKind::kLockRequest, SyncKind::kLockAcquired, r->Object(lock));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadReleaseLock(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                      OTF2_AttributeList* attrs, OTF2_Paradigm, uint32_t lock, uint32_t) {
  LocationReader* r = Derive(user, attrs, t, SyncKind::kLockRelease);
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  r->Sync(t, SyncKind::kLockRelease, r->Object(lock));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnOmpAcquireLock(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void* user,
                                   OTF2_AttributeList* attrs, uint32_t lock, uint32_t order) {
  return OnThreadAcquireLock(l, t, pos, user, attrs, OTF2_PARADIGM_OPENMP, lock, order);
}
OTF2_CallbackCode OnOmpReleaseLock(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void* user,
                                   OTF2_AttributeList* attrs, uint32_t lock, uint32_t order) {
  return OnThreadReleaseLock(l, t, pos, user, attrs, OTF2_PARADIGM_OPENMP, lock, order);
}

// Tasks: a task is (team, creating thread, generation number), or OTF2 1.x's task id. Created on
// one thread, it begins where a thread first switches to it (later switches resume it) and ends
// where it completes.
uint64_t TaskId(OTF2_CommRef team, uint32_t creator, uint32_t generation) {
  return (static_cast<uint64_t>(team & 0xffff) << 32 | generation) ^ (static_cast<uint64_t>(creator) << 24);
}
OTF2_CallbackCode TaskRecord(void* user, OTF2_TimeStamp t, OTF2_AttributeList* attrs, SyncKind kind, uint64_t task) {
  LocationReader* r = Derive(user, attrs, t, kind);
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  const uint64_t object = r->Object(task);
  if (kind == SyncKind::kTaskBegin) {
    if (std::find(r->tasks_begun.begin(), r->tasks_begun.end(), object) != r->tasks_begun.end())
      return OTF2_CALLBACK_SUCCESS;  // resumed
    r->tasks_begun.push_back(object);
  } else if (kind == SyncKind::kTaskEnd) {
    std::erase(r->tasks_begun, object);
  }
  r->Sync(t, kind, object);
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadTaskCreate(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                     OTF2_AttributeList* attrs, OTF2_CommRef team, uint32_t creator, uint32_t gen) {
  return TaskRecord(user, t, attrs, SyncKind::kTaskCreate, TaskId(team, creator, gen));
}
OTF2_CallbackCode OnThreadTaskSwitch(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                     OTF2_AttributeList* attrs, OTF2_CommRef team, uint32_t creator, uint32_t gen) {
  return TaskRecord(user, t, attrs, SyncKind::kTaskBegin, TaskId(team, creator, gen));
}
OTF2_CallbackCode OnThreadTaskComplete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                       OTF2_AttributeList* attrs, OTF2_CommRef team, uint32_t creator, uint32_t gen) {
  return TaskRecord(user, t, attrs, SyncKind::kTaskEnd, TaskId(team, creator, gen));
}
OTF2_CallbackCode OnOmpTaskCreate(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                  OTF2_AttributeList* attrs, uint64_t task) {
  return TaskRecord(user, t, attrs, SyncKind::kTaskCreate, task);
}
OTF2_CallbackCode OnOmpTaskSwitch(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                  OTF2_AttributeList* attrs, uint64_t task) {
  return TaskRecord(user, t, attrs, SyncKind::kTaskBegin, task);
}
OTF2_CallbackCode OnOmpTaskComplete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList* attrs, uint64_t task) {
  return TaskRecord(user, t, attrs, SyncKind::kTaskEnd, task);
}

// Threads of the create/wait model (Score-P's pthread adapter): a thread is (contingent, sequence
// count). The creator's ThreadCreate, the child's ThreadBegin and ThreadEnd, and the joiner's
// ThreadWait, recorded as pthread_join returns: its join began at the call's enter (WaitBegan).
uint64_t ThreadId(OTF2_CommRef contingent, uint64_t sequence) {
  return (static_cast<uint64_t>(contingent & 0xffff) << 32) ^ sequence;
}
template <SyncKind kind>
OTF2_CallbackCode OnThreadRecord(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                 OTF2_AttributeList* attrs, OTF2_CommRef contingent, uint64_t sequence) {
  LocationReader* r = Derive(user, attrs, t, kind);
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  r->Sync(t, kind, r->Object(ThreadId(contingent, sequence)));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadWait(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                               OTF2_AttributeList* attrs, OTF2_CommRef contingent, uint64_t sequence) {
  LocationReader* r = Derive(user, attrs, t, SyncKind::kThreadJoinEnd);  // grainscope's: its join begin is a marker
  if (r == nullptr) return OTF2_CALLBACK_SUCCESS;
  r->Wait(t, SyncKind::kThreadJoinBegin, SyncKind::kThreadJoinEnd, r->Object(ThreadId(contingent, sequence)));
  return OTF2_CALLBACK_SUCCESS;
}

}  // namespace

void SetThreadCallbacks(OTF2_EvtReaderCallbacks* cb) {
  OTF2_EvtReaderCallbacks_SetThreadForkCallback(cb, &OnThreadFork);
  OTF2_EvtReaderCallbacks_SetThreadJoinCallback(cb, &OnThreadJoin);
  OTF2_EvtReaderCallbacks_SetThreadTeamBeginCallback(cb, &OnThreadTeamBegin);
  OTF2_EvtReaderCallbacks_SetThreadTeamEndCallback(cb, &OnThreadTeamEnd);
  OTF2_EvtReaderCallbacks_SetOmpForkCallback(cb, &OnOmpFork);
  OTF2_EvtReaderCallbacks_SetOmpJoinCallback(cb, &OnOmpJoin);
  OTF2_EvtReaderCallbacks_SetThreadAcquireLockCallback(cb, &OnThreadAcquireLock);
  OTF2_EvtReaderCallbacks_SetThreadReleaseLockCallback(cb, &OnThreadReleaseLock);
  OTF2_EvtReaderCallbacks_SetOmpAcquireLockCallback(cb, &OnOmpAcquireLock);
  OTF2_EvtReaderCallbacks_SetOmpReleaseLockCallback(cb, &OnOmpReleaseLock);
  OTF2_EvtReaderCallbacks_SetThreadTaskCreateCallback(cb, &OnThreadTaskCreate);
  OTF2_EvtReaderCallbacks_SetThreadTaskSwitchCallback(cb, &OnThreadTaskSwitch);
  OTF2_EvtReaderCallbacks_SetThreadTaskCompleteCallback(cb, &OnThreadTaskComplete);
  OTF2_EvtReaderCallbacks_SetOmpTaskCreateCallback(cb, &OnOmpTaskCreate);
  OTF2_EvtReaderCallbacks_SetOmpTaskSwitchCallback(cb, &OnOmpTaskSwitch);
  OTF2_EvtReaderCallbacks_SetOmpTaskCompleteCallback(cb, &OnOmpTaskComplete);
  OTF2_EvtReaderCallbacks_SetThreadCreateCallback(cb, &OnThreadRecord<SyncKind::kThreadCreate>);
  OTF2_EvtReaderCallbacks_SetThreadBeginCallback(cb, &OnThreadRecord<SyncKind::kThreadBegin>);
  OTF2_EvtReaderCallbacks_SetThreadWaitCallback(cb, &OnThreadWait);
  OTF2_EvtReaderCallbacks_SetThreadEndCallback(cb, &OnThreadRecord<SyncKind::kThreadEnd>);
}

}  // namespace grainscope::otf2
