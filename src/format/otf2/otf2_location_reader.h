// The state of the OTF2 event reader while it reads one location (otf2_events.cc), shared with
// the callbacks of the thread records (otf2_thread_events.cc). Internal to gs_otf2.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "format/otf2/otf2_events.h"
#include "model/thread_sync.h"

namespace grainscope::otf2 {

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

inline constexpr std::array<std::string_view, kSkippedKindCount> kSkippedNames = {
#define GS_NAME(name) #name,
    GS_OTF2_SKIPPED_RECORDS(GS_NAME)
#undef GS_NAME
};

struct SkipCounter {
  uint64_t count = 0;
  uint32_t first_location = 0;
  TimeNs first_time = 0;
};

// What the locations of one batch (ReadOtf2Events) share while their events are read.
struct ReadState {
  StringId Intern(std::string_view text) { return builder != nullptr ? builder->Intern(text) : strings->Intern(text); }

  const Otf2Definitions* defs;
  // Where the markers' texts go: the trace's builder (the first batch), else the batch's own pool
  // (ReadOtf2Events interns them again as it merges the batch).
  TraceBuilder* builder;
  StringPool* strings;
  Otf2Events* out;
  std::array<SkipCounter, kSkippedKindCount> skipped{};
  uint64_t ignored_attributes = 0;
  uint64_t unknown_requests = 0;
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
  // grainscope's sync attributes of the record being read (ScanAttributes).
  struct ExactSyncAttributes {
    bool present = false;
    uint64_t object = 0;
    uint32_t arg = 0;
  } exact;
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

  // A record grainscope wrote carries the model's sync event in its attributes (the object an OTF2
  // field cannot hold: a lock's address, a thread's id): that event, exactly, and nothing derived
  // (no request or join begin at the enclosing call's enter, no team counting). Call after
  // ScanAttributes; false when the record is not grainscope's.
  bool ExactSync(OTF2_TimeStamp t, SyncKind kind) {
    if (!exact.present) return false;
    Sync(t, kind, exact.object, exact.arg);
    return true;
  }

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
  // The sync object and argument grainscope attaches to the thread records it writes are kept in
  // `exact` (see ExactSync).
  void ScanAttributes(OTF2_AttributeList* list, P2pRecord* record) {
    exact = ExactSyncAttributes{};
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
      } else if (ref == d.sync_object_attribute && type == OTF2_TYPE_UINT64) {
        exact.present = true;
        exact.object = value.uint64;
      } else if (ref == d.sync_arg_attribute && type == OTF2_TYPE_UINT32) {
        exact.arg = value.uint32;
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

inline LocationReader* Loc(void* user) { return static_cast<LocationReader*>(user); }

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


// Sets the callbacks of OTF2's thread records: teams, locks, tasks, threads (otf2_thread_events.cc).
void SetThreadCallbacks(OTF2_EvtReaderCallbacks* cb);

}  // namespace grainscope::otf2
