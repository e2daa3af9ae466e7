#include "format/otf2/otf2_events.h"

#include <array>
#include <string>

#include <fmt/format.h>

#include "base/progress.h"
#include "format/otf2/otf2_common.h"
#include "model/thread_sync.h"

namespace grainscope::otf2 {
namespace {

// Every event record kind of OTF2 3.0 the Trace model has no place for. Each is counted under
// "skipped_records" by kind.
#define GS_OTF2_SKIPPED_RECORDS(X)                                                                  \
  X(Unknown) X(BufferFlush) X(MeasurementOnOff) X(MpiRequestTest) X(MpiRequestCancelled)         \
  X(Metric) X(ParameterString) X(ParameterInt) X(ParameterUnsignedInt)                           \
  X(RmaWinCreate) X(RmaWinDestroy) X(RmaCollectiveBegin) X(RmaCollectiveEnd) X(RmaGroupSync)     \
  X(RmaRequestLock) X(RmaAcquireLock) X(RmaTryLock) X(RmaReleaseLock) X(RmaSync)                 \
  X(RmaWaitChange) X(RmaPut) X(RmaGet) X(RmaAtomic) X(RmaOpCompleteBlocking)                     \
  X(RmaOpCompleteNonBlocking) X(RmaOpTest) X(RmaOpCompleteRemote) X(CallingContextEnter)         \
  X(CallingContextLeave) X(CallingContextSample) X(IoCreateHandle) X(IoDestroyHandle)            \
  X(IoDuplicateHandle) X(IoSeek) X(IoChangeStatusFlags) X(IoDeleteFile) X(IoOperationBegin)      \
  X(IoOperationTest) X(IoOperationIssued) X(IoOperationComplete) X(IoOperationCancelled)         \
  X(IoAcquireLock) X(IoReleaseLock) X(IoTryLock) X(CommCreate) X(CommDestroy)

enum SkippedKind {
#define GS_ENUM(name) kSkipped##name,
  GS_OTF2_SKIPPED_RECORDS(GS_ENUM)
#undef GS_ENUM
  kSkippedKindCount
};

constexpr std::array<std::string_view, kSkippedKindCount> kSkippedNames = {
#define GS_NAME(name) #name,
    GS_OTF2_SKIPPED_RECORDS(GS_NAME)
#undef GS_NAME
};

struct SkipCounter {
  uint64_t count = 0;
  uint32_t first_location = 0;
  TimeNs first_time = 0;
};

// What all locations share while their events are read.
struct ReadState {
  const Otf2Definitions* defs;
  TraceBuilder* builder;
  Otf2Events* out;
  std::array<SkipCounter, kSkippedKindCount> skipped{};
  uint64_t ignored_attributes = 0;
  uint64_t unknown_requests = 0;
  uint64_t unclosed_regions = 0;
  bool strict = false;  // --strict: refuse improper nesting here, as before the builder repaired it
};

// The callbacks' user data: one location being read.
struct LocationReader {
  ReadState* state;
  uint32_t location;
  RawEvents* events;
  std::vector<uint32_t> open_regions;                        // RegionId values
  std::vector<std::pair<uint64_t, uint32_t>> open_requests;  // (request, p2p index)
  std::vector<uint32_t> open_collectives;                    // collective record indices
  std::vector<std::pair<uint64_t, uint32_t>> open_nonblocking;  // (request, collective record index)
  // OpenMP teams (ThreadFork ... ThreadJoin): this location's forks, team begins and ends so
  // far, and the teams it forked and has not joined (the master's).
  uint32_t forks = 0, team_begins = 0, team_ends = 0;
  std::vector<uint32_t> forked;
  std::vector<uint64_t> tasks_begun;  // tasks this location switched to (the first switch begins one)
  Status status;

  TimeNs Ns(OTF2_TimeStamp t) const { return state->defs->clock.ToNs(t); }

  // A sync event of this location (model/thread_sync.h).
  void Sync(OTF2_TimeStamp t, SyncKind kind, uint64_t object, uint32_t arg = 0) { SyncNs(Ns(t), kind, object, arg); }
  void SyncNs(TimeNs t, SyncKind kind, uint64_t object, uint32_t arg = 0) {
    std::vector<SyncRecord>& syncs = state->out->syncs;
    events->Append(t, EventKind::kSync, static_cast<uint32_t>(syncs.size()));
    syncs.push_back({kind, object, arg});
  }
  // Team k of this location's process as a sync object.
  uint64_t Team(uint32_t k) const { return ProcessSyncObject(state->defs->process_of[location], k); }
  // Any other object of this location's process (a lock, a thread, a task).
  uint64_t Object(uint64_t id) const { return ProcessSyncObject(state->defs->process_of[location], id); }

  // Where a wait that the record only shows ending began: Score-P records a lock's acquisition
  // and a thread's join when the call returns, inside the call's region (omp_set_lock,
  // "!$omp critical", pthread_mutex_lock, pthread_join), so the wait began at that region's enter
  // when it is the location's last event; otherwise it is taken to begin where it ends (no wait).
  TimeNs WaitBegan(OTF2_TimeStamp t) const {
    if (events->size() == 0 || events->kind.back() != EventKind::kEnter) return Ns(t);
    return std::min(Ns(t), events->time.back());
  }
  // A wait that ends at `t`: its begin (WaitBegan) and end events.
  void Wait(OTF2_TimeStamp t, SyncKind begin, SyncKind end, uint64_t object) {
    SyncNs(WaitBegan(t), begin, object);
    Sync(t, end, object);
  }

  OTF2_CallbackCode Fail(uint64_t position, TimeNs t, std::string message) {
    status = DataLoss(fmt::format("location {}, event {} at {} ns: {}",
                                  state->defs->location_refs[location], position, t, message));
    return OTF2_CALLBACK_INTERRUPT;
  }

  // Reads grainscope's own attributes into `record`; every other attribute is only counted.
  void ScanAttributes(OTF2_AttributeList* list, P2pRecord* record) {
    if (list == nullptr) return;
    const uint32_t n = OTF2_AttributeList_GetNumberOfElements(list);
    for (uint32_t i = 0; i < n; ++i) {
      OTF2_AttributeRef ref;
      OTF2_Type type;
      OTF2_AttributeValue value;
      if (OTF2_AttributeList_GetAttributeByIndex(list, i, &ref, &type, &value) != OTF2_SUCCESS) continue;
      const Otf2Definitions& d = *state->defs;
      if (record != nullptr && ref == d.message_key_attribute && type == OTF2_TYPE_UINT64) {
        record->key = value.uint64 + 1;
      } else if (record != nullptr && ref == d.message_name_attribute && type == OTF2_TYPE_STRING) {
        record->name_ref = value.stringRef;
      } else if (record != nullptr && ref == d.message_grain_attribute && type == OTF2_TYPE_REGION &&
                 value.regionRef < d.region_of_ref.size()) {
        record->grain = d.region_of_ref[value.regionRef];
      } else {
        ++state->ignored_attributes;
      }
    }
  }

  // The location with `rank` in communicator `comm`, or kNone.
  uint32_t PeerOf(uint32_t rank, OTF2_CommRef comm) const {
    const std::vector<CommInfo>& comms = state->defs->comm_of_ref;
    if (comm >= comms.size() || !comms[comm].defined) return kNone;
    const CommInfo& c = comms[comm];
    if (c.self) return rank == 0 ? location : kNone;
    return rank < c.members.size() ? c.members[rank].value : kNone;
  }

  OTF2_CallbackCode AddP2p(uint64_t position, OTF2_TimeStamp ticks, OTF2_AttributeList* attrs,
                           bool is_send, uint32_t rank, OTF2_CommRef comm, uint32_t tag,
                           uint64_t bytes, P2pRecord* record) {
    const TimeNs t = Ns(ticks);
    // OTF2_UNDEFINED_UINT32: a peer nobody recorded (grainscope writes it for a receive whose
    // send is missing, or the reverse); the record stays an unmatched message.
    const uint32_t peer = rank == OTF2_UNDEFINED_UINT32 ? kNone : PeerOf(rank, comm);
    if (peer == kNone && rank != OTF2_UNDEFINED_UINT32) {
      return Fail(position, t, fmt::format("{} names rank {} of communicator {}, which has no such rank",
                                           is_send ? "send" : "receive", rank, comm));
    }
    ScanAttributes(attrs, record);
    record->peer = peer;
    record->comm_ref = comm;
    record->communicator = state->defs->comm_of_ref[comm].id;
    record->tag = static_cast<int32_t>(tag);
    record->bytes = bytes;
    record->is_send = is_send;
    record->event = events->size();
    if (record->order == kNone) record->order = record->event;
    events->Append(t, is_send ? EventKind::kSend : EventKind::kRecv,
                   static_cast<uint32_t>(record - state->out->p2p.data()));
    return OTF2_CALLBACK_SUCCESS;
  }

  P2pRecord* NewP2p() {
    state->out->p2p.push_back(P2pRecord{location});
    return &state->out->p2p.back();
  }

  // Removes and returns the p2p index of an open request, or kNone.
  uint32_t TakeRequest(uint64_t request) {
    for (size_t i = open_requests.size(); i-- > 0;) {
      if (open_requests[i].first == request) {
        const uint32_t index = open_requests[i].second;
        open_requests[i] = open_requests.back();
        open_requests.pop_back();
        return index;
      }
    }
    return kNone;
  }
};

LocationReader* Loc(void* user) { return static_cast<LocationReader*>(user); }

template <typename Callback>
struct Skip;
template <typename... Rest>
struct Skip<OTF2_CallbackCode (*)(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void*,
                                  OTF2_AttributeList*, Rest...)> {
  template <int kind>
  static OTF2_CallbackCode Record(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                  OTF2_AttributeList*, Rest...) {
    LocationReader* r = Loc(user);
    SkipCounter& c = r->state->skipped[kind];
    if (c.count++ == 0) {
      c.first_location = r->location;
      c.first_time = r->Ns(t);
    }
    return OTF2_CALLBACK_SUCCESS;
  }
};

// ENTER 0 7397466977683839 Region: "int main(int, char**)" <3>
OTF2_CallbackCode OnEnter(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* user,
                          OTF2_AttributeList* attrs, OTF2_RegionRef region) {
  LocationReader* r = Loc(user);
  const std::vector<RegionId>& regions = r->state->defs->region_of_ref;
  if (region >= regions.size() || !regions[region].valid())
    return r->Fail(pos, r->Ns(t), fmt::format("enters undefined region {}", region));
  r->ScanAttributes(attrs, nullptr);
  if (r->state->strict) r->open_regions.push_back(regions[region].value);
  r->events->Append(r->Ns(t), EventKind::kEnter, regions[region].value);
  // A thread barrier's entry is also its arrival: the assembler adds that sync event (counted here
  // so that the events are reserved at their final number).
  r->state->out->thread_barrier_events[r->location] += r->state->defs->thread_barrier_region[region];
  return OTF2_CALLBACK_SUCCESS;
}

// LEAVE 0 7397467395127294 Region: "int main(int, char**)" <3>
// Improper nesting (a Leave of an outer region, or of one not open) is repaired by the
// TraceBuilder, the same for every reader; only --strict refuses it here, where the record is known.
OTF2_CallbackCode OnLeave(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* user,
                          OTF2_AttributeList* attrs, OTF2_RegionRef region) {
  LocationReader* r = Loc(user);
  const std::vector<RegionId>& regions = r->state->defs->region_of_ref;
  const uint32_t id = region < regions.size() ? regions[region].value : kNone;
  if (r->state->strict) {
    if (r->open_regions.empty() || r->open_regions.back() != id) {
      return r->Fail(pos, r->Ns(t),
                     fmt::format("leaves region {} which is not the innermost open region", region));
    }
    r->open_regions.pop_back();
  }
  r->ScanAttributes(attrs, nullptr);
  if (id != kNone) r->state->out->thread_barrier_events[r->location] += r->state->defs->thread_barrier_region[region];
  r->events->Append(r->Ns(t), EventKind::kLeave, id);
  return OTF2_CALLBACK_SUCCESS;
}

// MPI_SEND 0 7397467382760060 Receiver: 1, Communicator: "MPI_COMM_WORLD" <1>, Tag: 10, Length: 16384
OTF2_CallbackCode OnMpiSend(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* user,
                            OTF2_AttributeList* attrs, uint32_t receiver, OTF2_CommRef comm,
                            uint32_t tag, uint64_t bytes) {
  LocationReader* r = Loc(user);
  return r->AddP2p(pos, t, attrs, true, receiver, comm, tag, bytes, r->NewP2p());
}

OTF2_CallbackCode OnMpiIsend(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* user,
                             OTF2_AttributeList* attrs, uint32_t receiver, OTF2_CommRef comm,
                             uint32_t tag, uint64_t bytes, uint64_t request) {
  LocationReader* r = Loc(user);
  P2pRecord* record = r->NewP2p();
  record->request = request;
  OTF2_CallbackCode rc = r->AddP2p(pos, t, attrs, true, receiver, comm, tag, bytes, record);
  r->open_requests.emplace_back(request, static_cast<uint32_t>(r->state->out->p2p.size() - 1));
  return rc;
}

OTF2_CallbackCode OnMpiIsendComplete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                     OTF2_AttributeList* attrs, uint64_t request) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  const uint32_t index = r->TakeRequest(request);
  if (index == kNone || !r->state->out->p2p[index].is_send) {
    ++r->state->unknown_requests;
    return OTF2_CALLBACK_SUCCESS;
  }
  r->events->Append(r->Ns(t), EventKind::kSendComplete, index);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnMpiIrecvRequest(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList* attrs, uint64_t request) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  P2pRecord* record = r->NewP2p();
  record->request = request;
  record->order = r->events->size();
  const uint32_t index = static_cast<uint32_t>(r->state->out->p2p.size() - 1);
  r->open_requests.emplace_back(request, index);
  r->events->Append(r->Ns(t), EventKind::kRecvPost, index);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnMpiIrecv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* user,
                             OTF2_AttributeList* attrs, uint32_t sender, OTF2_CommRef comm,
                             uint32_t tag, uint64_t bytes, uint64_t request) {
  LocationReader* r = Loc(user);
  uint32_t index = r->TakeRequest(request);
  if (index == kNone || r->state->out->p2p[index].is_send) {
    r->NewP2p()->request = request;  // no IrecvRequest before it: the receive is its own post
    index = static_cast<uint32_t>(r->state->out->p2p.size() - 1);
  }
  return r->AddP2p(pos, t, attrs, false, sender, comm, tag, bytes, &r->state->out->p2p[index]);
}

// MPI_RECV 1 7397467382799971 Sender: 0, Communicator: "MPI_COMM_WORLD" <1>, Tag: 10, Length: 16384
OTF2_CallbackCode OnMpiRecv(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* user,
                            OTF2_AttributeList* attrs, uint32_t sender, OTF2_CommRef comm,
                            uint32_t tag, uint64_t bytes) {
  LocationReader* r = Loc(user);
  return r->AddP2p(pos, t, attrs, false, sender, comm, tag, bytes, r->NewP2p());
}

// A collective begins on r's location: its record, and its kCollBegin event.
uint32_t BeginCollective(LocationReader* r, OTF2_TimeStamp t) {
  std::vector<CollectiveRecord>& colls = r->state->out->collectives;
  const uint32_t index = static_cast<uint32_t>(colls.size());
  colls.push_back(CollectiveRecord{r->location, r->events->size()});
  r->events->Append(r->Ns(t), EventKind::kCollBegin, index);
  return index;
}

// Collective record `index` ends: the operation, its communicator, root and sizes come with the
// end record (MpiCollectiveEnd, NonBlockingCollectiveComplete).
OTF2_CallbackCode EndCollective(LocationReader* r, uint64_t pos, OTF2_TimeStamp t, uint32_t index,
                                OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                uint64_t received) {
  const std::vector<CommInfo>& comms = r->state->defs->comm_of_ref;
  if (comm >= comms.size() || !comms[comm].defined)
    return r->Fail(pos, r->Ns(t), fmt::format("collective on undefined communicator {}", comm));
  CollectiveRecord& c = r->state->out->collectives[index];
  c.end_event = r->events->size();
  c.op = CollectiveOpOf(op);
  c.comm_ref = comm;
  c.communicator = comms[comm].id;
  if (root != OTF2_UNDEFINED_UINT32) {
    const uint32_t loc = r->PeerOf(root, comm);
    if (loc != kNone) c.root = LocationId(loc);
  }
  c.bytes_sent = sent;
  c.bytes_received = received;
  r->events->Append(r->Ns(t), EventKind::kCollEnd, index);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnCollectiveBegin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList* attrs) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  r->open_collectives.push_back(BeginCollective(r, t));
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnCollectiveEnd(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* user,
                                  OTF2_AttributeList* attrs, OTF2_CollectiveOp op,
                                  OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                  uint64_t received) {
  LocationReader* r = Loc(user);
  if (r->open_collectives.empty())
    return r->Fail(pos, r->Ns(t), "collective end without a collective begin");
  r->ScanAttributes(attrs, nullptr);
  const uint32_t index = r->open_collectives.back();
  r->open_collectives.pop_back();
  return EndCollective(r, pos, t, index, op, comm, root, sent, received);
}

// A non-blocking collective (Score-P: MPI_Ibarrier ...): begun at its request, identified by the
// request id until the completion (in the Wait/Test call) that names its operation.
OTF2_CallbackCode OnNonBlockingCollectiveRequest(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                                 OTF2_AttributeList* attrs, uint64_t request) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  r->open_nonblocking.emplace_back(request, BeginCollective(r, t));
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnNonBlockingCollectiveComplete(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t pos, void* user,
                                                  OTF2_AttributeList* attrs, OTF2_CollectiveOp op,
                                                  OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                                  uint64_t received, uint64_t request) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  auto& open = r->open_nonblocking;
  auto it = std::find_if(open.begin(), open.end(), [&](const auto& p) { return p.first == request; });
  if (it == open.end()) {
    ++r->state->unknown_requests;  // its request record is missing: nothing to end
    return OTF2_CALLBACK_SUCCESS;
  }
  const uint32_t index = it->second;
  open.erase(it);
  return EndCollective(r, pos, t, index, op, comm, root, sent, received);
}

// OpenMP teams (Score-P): the master's k-th ThreadFork creates team k of its process, whose
// threads' k-th ThreadTeamBegin and ThreadTeamEnd begin and end it, and the master's ThreadJoin
// waits for them from its own team end (model/thread_sync.h: fork and join edges). One sync event
// per record, so the events reserved from the definitions' counts are enough. Nested teams
// of other sizes are numbered the same way and may pair wrongly.
OTF2_CallbackCode OnThreadFork(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                               OTF2_AttributeList* attrs, OTF2_Paradigm, uint32_t) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  const uint32_t k = r->forks++;
  r->forked.push_back(k);
  r->Sync(t, SyncKind::kThreadCreate, r->Team(k));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadJoin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                               OTF2_AttributeList* attrs, OTF2_Paradigm) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  if (r->forked.empty()) return OTF2_CALLBACK_SUCCESS;  // a join of nothing forked here: nothing waits
  const uint32_t k = r->forked.back();
  r->forked.pop_back();
  r->Sync(t, SyncKind::kThreadJoinEnd, r->Team(k));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadTeamBegin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                    OTF2_AttributeList* attrs, OTF2_CommRef) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  r->Sync(t, SyncKind::kThreadBegin, r->Team(r->team_begins++));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadTeamEnd(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                  OTF2_AttributeList* attrs, OTF2_CommRef) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
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
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  r->Wait(t, SyncKind::kLockRequest, SyncKind::kLockAcquired, r->Object(lock));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadReleaseLock(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                      OTF2_AttributeList* attrs, OTF2_Paradigm, uint32_t lock, uint32_t) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
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
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
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
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  r->Sync(t, kind, r->Object(ThreadId(contingent, sequence)));
  return OTF2_CALLBACK_SUCCESS;
}
OTF2_CallbackCode OnThreadWait(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                               OTF2_AttributeList* attrs, OTF2_CommRef contingent, uint64_t sequence) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  r->Wait(t, SyncKind::kThreadJoinBegin, SyncKind::kThreadJoinEnd, r->Object(ThreadId(contingent, sequence)));
  return OTF2_CALLBACK_SUCCESS;
}

// grainscope writes markers as ParameterString records of its marker parameter.
OTF2_CallbackCode OnParameterString(OTF2_LocationRef l, OTF2_TimeStamp t, uint64_t pos, void* user,
                                    OTF2_AttributeList* attrs, OTF2_ParameterRef parameter,
                                    OTF2_StringRef value) {
  LocationReader* r = Loc(user);
  const Otf2Definitions& d = *r->state->defs;
  if (parameter != d.marker_parameter || parameter == OTF2_UNDEFINED_PARAMETER) {
    return Skip<OTF2_EvtReaderCallback_ParameterString>::Record<kSkippedParameterString>(
        l, t, pos, user, attrs, parameter, value);
  }
  r->ScanAttributes(attrs, nullptr);
  r->events->Append(r->Ns(t), EventKind::kMarker, r->state->builder->Intern(d.String(value)).value);
  return OTF2_CALLBACK_SUCCESS;
}

// PROGRAM_BEGIN 0 7397466977622557 Name: "/g/g92/.../ping-pong.otf2" <8>, 0 Arguments
OTF2_CallbackCode OnProgramBegin(OTF2_LocationRef, OTF2_TimeStamp t, uint64_t, void* user,
                                 OTF2_AttributeList* attrs, OTF2_StringRef, uint32_t,
                                 const OTF2_StringRef*) {
  LocationReader* r = Loc(user);
  r->ScanAttributes(attrs, nullptr);
  Otf2Events* out = r->state->out;
  const TimeNs ns = r->Ns(t);
  if (!out->has_program_begin || ns < out->earliest_program_begin) out->earliest_program_begin = ns;
  out->has_program_begin = true;
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode OnProgramEnd(OTF2_LocationRef, OTF2_TimeStamp, uint64_t, void* user,
                               OTF2_AttributeList* attrs, int64_t) {
  Loc(user)->ScanAttributes(attrs, nullptr);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_EvtReaderCallbacks* NewCallbacks() {
  OTF2_EvtReaderCallbacks* cb = OTF2_EvtReaderCallbacks_New();
#define GS_SET_SKIP(name) \
  OTF2_EvtReaderCallbacks_Set##name##Callback(cb, &Skip<OTF2_EvtReaderCallback_##name>::Record<kSkipped##name>);
  GS_OTF2_SKIPPED_RECORDS(GS_SET_SKIP)
#undef GS_SET_SKIP
  OTF2_EvtReaderCallbacks_SetEnterCallback(cb, &OnEnter);
  OTF2_EvtReaderCallbacks_SetLeaveCallback(cb, &OnLeave);
  OTF2_EvtReaderCallbacks_SetMpiSendCallback(cb, &OnMpiSend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCallback(cb, &OnMpiIsend);
  OTF2_EvtReaderCallbacks_SetMpiIsendCompleteCallback(cb, &OnMpiIsendComplete);
  OTF2_EvtReaderCallbacks_SetMpiIrecvRequestCallback(cb, &OnMpiIrecvRequest);
  OTF2_EvtReaderCallbacks_SetMpiIrecvCallback(cb, &OnMpiIrecv);
  OTF2_EvtReaderCallbacks_SetMpiRecvCallback(cb, &OnMpiRecv);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveBeginCallback(cb, &OnCollectiveBegin);
  OTF2_EvtReaderCallbacks_SetMpiCollectiveEndCallback(cb, &OnCollectiveEnd);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveRequestCallback(cb, &OnNonBlockingCollectiveRequest);
  OTF2_EvtReaderCallbacks_SetNonBlockingCollectiveCompleteCallback(cb, &OnNonBlockingCollectiveComplete);
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
  OTF2_EvtReaderCallbacks_SetParameterStringCallback(cb, &OnParameterString);
  OTF2_EvtReaderCallbacks_SetProgramBeginCallback(cb, &OnProgramBegin);
  OTF2_EvtReaderCallbacks_SetProgramEndCallback(cb, &OnProgramEnd);
  return cb;
}

void ReportSkipped(const ReadState& s, TraceBuilder& builder, std::string_view file) {
  uint64_t total = 0;
  std::string kinds;
  for (int k = 0; k < kSkippedKindCount; ++k) {
    const SkipCounter& c = s.skipped[k];
    if (c.count == 0) continue;
    total += c.count;
    if (!kinds.empty()) kinds += "; ";
    // Times relative to the archive's global offset (the Trace's origin) when it has one.
    const TimeNs since = c.first_time - (s.defs->has_clock_properties ? s.defs->global_offset_ns : 0);
    kinds += fmt::format("{} {} (first on location {} at {} ns)", c.count, kSkippedNames[k],
                         s.defs->location_refs[c.first_location], since);
  }
  builder.diagnostics().AddCount("skipped_records", total,
                                 fmt::format("{}: record kinds not modelled: {}", file, kinds));
  builder.diagnostics().AddCount(
      "ignored_attributes", s.ignored_attributes,
      fmt::format("{}: attributes attached to records (such as Score-P's ProcessId) are not kept", file));
  builder.diagnostics().AddCount(
      "unknown_requests", s.unknown_requests,
      fmt::format("{}: MpiIsendComplete of a request no MpiIsend opened", file));
  // With --strict (else the builder closes them, counted per location).
  builder.diagnostics().AddCount(
      "unclosed_regions", s.unclosed_regions,
      fmt::format("{}: regions still open at a location's last event were closed there", file));
}

// Location event files that are missing or unreadable: `--strict` refuses the first, else they are
// counted as missing_location_files, named in the note.
struct MissingFiles {
  const Otf2Definitions& defs;
  std::string_view anchor;
  bool strict;
  std::vector<std::string> names;

  // The file of location `l`: ARCHIVE/REF.evt beside the anchor ARCHIVE.otf2.
  std::string FileOf(size_t l) const {
    std::string_view stem = anchor.substr(0, anchor.size() - (anchor.ends_with(".otf2") ? 5 : 0));
    return fmt::format("{}/{}.evt", stem, defs.location_refs[l]);
  }

  Status Add(size_t l, uint32_t events_read, std::string_view why) {
    if (strict) {
      return DataLoss(fmt::format("{}: the events of location {} ({}) cannot be read: {}", anchor,
                                  defs.location_refs[l], FileOf(l), why));
    }
    std::string name = FileOf(l);
    if (events_read > 0) name += fmt::format(" (its first {} events kept)", events_read);
    names.push_back(std::move(name));
    return OkStatus();
  }

  void Report(TraceBuilder& builder) const {
    if (names.empty()) return;
    std::string list;
    for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
    builder.diagnostics().AddCount("missing_location_files", names.size(), fmt::format("{}: {}", anchor, list));
  }
};

}  // namespace

Status ReadOtf2Events(OTF2_Reader* reader, const Otf2Definitions& defs, TraceBuilder& builder,
                      std::string_view file, bool strict, Otf2Events* out) {
  ReadState state{&defs, &builder, out};
  state.strict = strict;
  const size_t n = defs.location_refs.size();
  out->locations.resize(n);
  out->thread_barrier_events.assign(n, 0);
  for (size_t l = 0; l < n; ++l) OTF2_Reader_SelectLocation(reader, defs.location_refs[l]);

  // Local definitions carry the mapping tables and clock offsets libotf2 applies to the events.
  if (n > 0 && OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS) {
    for (size_t l = 0; l < n; ++l) {
      OTF2_DefReader* local = OTF2_Reader_GetDefReader(reader, defs.location_refs[l]);
      if (local == nullptr) continue;
      uint64_t count = 0;
      OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalDefinitions(reader, local, &count);
      OTF2_Reader_CloseDefReader(reader, local);
      if (rc != OTF2_SUCCESS)
        return Otf2Error(rc, fmt::format("{}: local definitions of location {}", file, defs.location_refs[l]));
    }
    OTF2_Reader_CloseDefFiles(reader);
  }

  if (n > 0) {
    OTF2_ErrorCode rc = OTF2_Reader_OpenEvtFiles(reader);
    if (rc != OTF2_SUCCESS) return Otf2Error(rc, fmt::format("{}: opening the event files", file));
  }
  OTF2_EvtReaderCallbacks* callbacks = NewCallbacks();
  MissingFiles missing{defs, file, strict};
  Status status;
  progress::Begin("reading locations", n);
  for (size_t l = 0; l < n && status.ok(); ++l) {
    progress::Advance(l);
    LocationReader loc{&state, static_cast<uint32_t>(l), &out->locations[l]};
    const uint64_t expected = defs.location_event_counts[l];
    if (expected < (uint64_t{1} << 32)) {
      loc.events->time.reserve(expected);
      loc.events->kind.reserve(expected);
      loc.events->arg.reserve(expected);
    }
    OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader, defs.location_refs[l]);
    if (events == nullptr && expected == 0) continue;  // a location that recorded nothing
    if (events == nullptr) {
      status = missing.Add(l, 0, "cannot be opened");
      continue;
    }
    OTF2_Reader_RegisterEvtCallbacks(reader, events, callbacks, &loc);
    uint64_t count = 0;
    OTF2_ErrorCode rc = OTF2_Reader_ReadAllLocalEvents(reader, events, &count);
    OTF2_Reader_CloseEvtReader(reader, events);
    if (!loc.status.ok()) {
      status = DataLoss(fmt::format("{}: {}", file, loc.status.message()));
    } else if (rc != OTF2_SUCCESS) {
      // A location file never written or lost (APEX's 8.evt), or damaged part way: the other
      // locations are analysed, with what this one held before the damage.
      status = missing.Add(l, loc.events->size(), OTF2_Error_GetDescription(rc));
    } else if (strict && !loc.open_regions.empty()) {
      // A trace cut short (a crashed run): close what is open at the last event.
      const TimeNs last = loc.events->time.back();
      state.unclosed_regions += loc.open_regions.size();
      while (!loc.open_regions.empty()) {
        loc.events->Append(last, EventKind::kLeave, loc.open_regions.back());
        loc.open_regions.pop_back();
      }
    }
  }
  OTF2_EvtReaderCallbacks_Delete(callbacks);
  if (n > 0) OTF2_Reader_CloseEvtFiles(reader);
  GS_RETURN_IF_ERROR(status);
  ReportSkipped(state, builder, file);
  missing.Report(builder);
  return OkStatus();
}

}  // namespace grainscope::otf2
