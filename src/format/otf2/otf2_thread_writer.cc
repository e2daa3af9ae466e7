#include "format/otf2/otf2_thread_writer.h"

#include <algorithm>

#include "model/thread_sync.h"

namespace grainscope::otf2 {

Otf2ThreadWriter::Otf2ThreadWriter(const Trace& trace) : t_(trace) {
  // A thread barrier's model communicator is "barrier <object>", one per (object, threads): the
  // OTF2 communicator is its threads' team, shared by every object those threads meet at.
  barrier_.resize(t_.communicators().size());
  for (uint32_t c = 0; c < barrier_.size(); ++c) {
    const Communicator& comm = t_.communicators()[c];
    const std::optional<uint64_t> object = ThreadBarrierObject(t_.str(comm.name));
    if (!object) continue;
    std::vector<uint64_t> members;
    for (LocationId m : comm.members) members.push_back(m.value);
    barrier_[c] = Barrier{*object, TeamOf(std::move(members))};
  }
  ScanSyncs();
}

uint32_t Otf2ThreadWriter::TeamOf(std::vector<uint64_t> members) {
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  auto [it, added] = team_of_members_.try_emplace(members, static_cast<uint32_t>(teams_.size()));
  if (added) teams_.push_back(std::move(members));
  return it->second;
}

// Score-P's threads of the create/wait model are (contingent, sequence number); grainscope's one
// contingent is every location.
uint32_t Otf2ThreadWriter::Contingent() {
  if (contingent_ == kNoTeam) {
    std::vector<uint64_t> all(t_.locations().size());
    for (uint64_t l = 0; l < all.size(); ++l) all[l] = l;
    contingent_ = TeamOf(std::move(all));
  }
  return contingent_;
}

bool Otf2ThreadWriter::IsMarker(uint32_t row) const {
  switch (t_.syncs().kind[row]) {
    case SyncKind::kLockAcquired:
    case SyncKind::kLockRelease:
    case SyncKind::kThreadCreate:
    case SyncKind::kThreadBegin:
    case SyncKind::kThreadEnd:
    case SyncKind::kThreadJoinEnd:
    case SyncKind::kTaskCreate:
    case SyncKind::kTaskBegin:
    case SyncKind::kTaskEnd: return false;
    default: return true;  // a lock request, a condition, a join's begin, a barrier event left over
  }
}

// Which thread objects are teams, and the communicators they need: one pass over the events.
void Otf2ThreadWriter::ScanSyncs() {
  const SyncTable& s = t_.syncs();
  bool tasks = false;
  for (uint32_t l = 0; l < t_.locations().size(); ++l) {
    const EventColumns& e = t_.events(LocationId(l));
    for (uint32_t i = 0; i < e.size(); ++i) {
      if (e.kind[i] != EventKind::kSync) continue;
      const uint32_t row = e.arg[i];
      const bool marker = IsMarker(row);
      any_markers_ |= marker;
      any_records_ |= !marker;
      const SyncKind k = s.kind[row];
      tasks |= k == SyncKind::kTaskCreate || k == SyncKind::kTaskBegin || k == SyncKind::kTaskEnd;
      if (k < SyncKind::kThreadCreate || k > SyncKind::kThreadJoinEnd) continue;
      Thread& th = threads_[s.object[row]];
      if (k == SyncKind::kThreadCreate) th.creator = l;
      if (k == SyncKind::kThreadBegin) th.begins.push_back(l);
    }
  }
  bool pthreads = tasks;
  for (auto& [object, th] : threads_) {
    std::sort(th.begins.begin(), th.begins.end());
    th.begins.erase(std::unique(th.begins.begin(), th.begins.end()), th.begins.end());
    const bool team = th.begins.size() > 1 || std::binary_search(th.begins.begin(), th.begins.end(), th.creator);
    if (team) {
      th.team = TeamOf(std::vector<uint64_t>(th.begins.begin(), th.begins.end()));
      paradigm_ = OTF2_PARADIGM_OPENMP;
    }
    pthreads |= !team;
  }
  if (pthreads) Contingent();
}

OTF2_AttributeList* Otf2ThreadWriter::Attributes(OTF2_AttributeList* attrs, uint64_t object, uint32_t arg) const {
  OTF2_AttributeList_RemoveAllAttributes(attrs);
  OTF2_AttributeList_AddUint64(attrs, object_attribute_, object);
  if (arg != 0) OTF2_AttributeList_AddUint32(attrs, arg_attribute_, arg);
  return attrs;
}

OTF2_ErrorCode Otf2ThreadWriter::WriteSync(OTF2_EvtWriter* w, OTF2_AttributeList* attrs, OTF2_TimeStamp ts,
                                           LocationId loc, uint32_t row) {
  const SyncTable& s = t_.syncs();
  const uint64_t object = s.object[row];
  OTF2_AttributeList* a = Attributes(attrs, object, s.arg[row]);
  const SyncKind kind = s.kind[row];
  if (kind == SyncKind::kLockAcquired || kind == SyncKind::kLockRelease) {
    auto [it, added] = locks_.try_emplace(object, Lock{static_cast<uint32_t>(locks_.size()), 0});
    Lock& lock = it->second;
    if (kind == SyncKind::kLockRelease) return OTF2_EvtWriter_ThreadReleaseLock(w, a, ts, paradigm_, lock.id, lock.acquisitions);
    return OTF2_EvtWriter_ThreadAcquireLock(w, a, ts, paradigm_, lock.id, ++lock.acquisitions);
  }
  // Tasks: (thread team, creating thread, generation number); the object is the generation.
  const OTF2_CommRef contingent = contingent_ == kNoTeam ? OTF2_UNDEFINED_COMM : TeamRef(contingent_);
  const auto generation = static_cast<uint32_t>(object);
  if (kind == SyncKind::kTaskCreate) return OTF2_EvtWriter_ThreadTaskCreate(w, a, ts, contingent, loc.value, generation);
  if (kind == SyncKind::kTaskBegin) return OTF2_EvtWriter_ThreadTaskSwitch(w, a, ts, contingent, loc.value, generation);
  if (kind == SyncKind::kTaskEnd) return OTF2_EvtWriter_ThreadTaskComplete(w, a, ts, contingent, loc.value, generation);
  const auto it = threads_.find(object);
  const uint32_t team = it == threads_.end() ? kNoTeam : it->second.team;
  if (team != kNoTeam) {  // fork/join: OpenMP's team model
    switch (kind) {
      case SyncKind::kThreadCreate:
        return OTF2_EvtWriter_ThreadFork(w, a, ts, paradigm_, static_cast<uint32_t>(teams_[team].size()));
      case SyncKind::kThreadBegin: return OTF2_EvtWriter_ThreadTeamBegin(w, a, ts, TeamRef(team));
      case SyncKind::kThreadEnd: return OTF2_EvtWriter_ThreadTeamEnd(w, a, ts, TeamRef(team));
      default: return OTF2_EvtWriter_ThreadJoin(w, a, ts, paradigm_);
    }
  }
  switch (kind) {  // create/wait: the pthread model, the object as the sequence number
    case SyncKind::kThreadCreate: return OTF2_EvtWriter_ThreadCreate(w, a, ts, contingent, object);
    case SyncKind::kThreadBegin: return OTF2_EvtWriter_ThreadBegin(w, a, ts, contingent, object);
    case SyncKind::kThreadEnd: return OTF2_EvtWriter_ThreadEnd(w, a, ts, contingent, object);
    default: return OTF2_EvtWriter_ThreadWait(w, a, ts, contingent, object);
  }
}

OTF2_ErrorCode Otf2ThreadWriter::WriteBarrierBegin(OTF2_EvtWriter* w, OTF2_TimeStamp ts) {
  return OTF2_EvtWriter_MpiCollectiveBegin(w, nullptr, ts);
}

OTF2_ErrorCode Otf2ThreadWriter::WriteBarrierEnd(OTF2_EvtWriter* w, OTF2_AttributeList* attrs, OTF2_TimeStamp ts,
                                                 uint32_t c) {
  return OTF2_EvtWriter_MpiCollectiveEnd(w, Attributes(attrs, barrier_[c].object, 0), ts, OTF2_COLLECTIVE_OP_BARRIER,
                                         TeamRef(barrier_[c].team), OTF2_UNDEFINED_UINT32, 0, 0);
}

}  // namespace grainscope::otf2
