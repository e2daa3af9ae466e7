#include "format/otf2/otf2_events.h"

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <tuple>

#include <fmt/format.h>

#include "base/parallel.h"
#include "base/progress.h"
#include "format/otf2/otf2_common.h"
#include "format/otf2/otf2_location_reader.h"
#include "model/thread_sync.h"

namespace grainscope::otf2 {
namespace {

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
// A thread barrier grainscope wrote on a thread team's communicator (kThreadTeamName, with the
// barrier's object as attribute): its begin and end are the arrival at and departure from the
// barrier, sync events from which the builder makes the instance and its "barrier <object>"
// communicator again (model/thread_sync.h), as it did for the trace that was written. The
// record is no collective of the model. Participants: the team's threads.
OTF2_CallbackCode EndThreadBarrier(LocationReader* r, OTF2_TimeStamp t, uint32_t index, const CommInfo& team) {
  CollectiveRecord& c = r->state->out->collectives[index];
  c.thread_barrier = true;
  std::vector<SyncRecord>& syncs = r->state->out->syncs;
  r->events->kind[c.begin_event] = EventKind::kSync;
  r->events->arg[c.begin_event] = static_cast<uint32_t>(syncs.size());
  syncs.push_back({SyncKind::kBarrierEnter, r->exact.object, static_cast<uint32_t>(team.members.size())});
  r->Sync(t, SyncKind::kBarrierLeave, r->exact.object);
  return OTF2_CALLBACK_SUCCESS;
}

OTF2_CallbackCode EndCollective(LocationReader* r, uint64_t pos, OTF2_TimeStamp t, uint32_t index,
                                OTF2_CollectiveOp op, OTF2_CommRef comm, uint32_t root, uint64_t sent,
                                uint64_t received) {
  const std::vector<CommInfo>& comms = r->state->defs->comm_of_ref;
  if (comm >= comms.size() || !comms[comm].defined)
    return r->Fail(pos, r->Ns(t), fmt::format("collective on undefined communicator {}", comm));
  if (comms[comm].thread_team && r->exact.present) return EndThreadBarrier(r, t, index, comms[comm]);
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
  r->events->Append(r->Ns(t), EventKind::kMarker, r->state->Intern(d.String(value)).value);
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
  SetThreadCallbacks(cb);
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
    kinds += fmt::format("{} {} (first on '{}' at {} ns)", c.count, kSkippedNames[k],
                         builder.LocationName(LocationId(c.first_location)), since);
  }
  builder.diagnostics().AddCount(Diag::kSkippedRecords, total,
                                 fmt::format("{}: record kinds not modelled: {}", file, kinds));
  builder.diagnostics().AddCount(
      Diag::kIgnoredAttributes, s.ignored_attributes,
      fmt::format("{}: attributes attached to records (such as Score-P's ProcessId) are not kept", file));
  builder.diagnostics().AddCount(
      Diag::kUnknownRequests, s.unknown_requests,
      fmt::format("{}: MpiIsendComplete of a request no MpiIsend opened", file));
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
    builder.diagnostics().AddCount(Diag::kMissingLocationFiles, names.size(), fmt::format("{}: {}", anchor, list));
  }
};

// Local definitions carry the mapping tables and clock offsets libotf2 applies to the events.
Status ReadLocalDefinitions(OTF2_Reader* reader, const Otf2Definitions& defs, std::string_view file,
                            std::span<const uint32_t> locations) {
  if (!locations.empty() && OTF2_Reader_OpenDefFiles(reader) == OTF2_SUCCESS) {
    for (uint32_t l : locations) {
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
  return OkStatus();
}

// The locations [first, last) and what reading them found: one task of ReadOtf2Events. The first
// batch reads into the output itself, with the builder's strings; each other batch numbers its
// records and marker strings from 0 until it is merged.
struct Batch {
  std::vector<uint32_t> locations;  // in order
  Otf2Events own;
  Otf2Events* events = &own;
  StringPool strings;
  ReadState state{};
  std::vector<std::tuple<size_t, uint32_t, std::string>> missing;  // (location, events kept, why)
  Status status;
};

// A location's share of the reading step: the events its definition states (at least 1, for a
// location that states none), so the bar moves with the events read rather than the locations
// begun (which held it at "31 / 32" while the largest, last location was read).
uint64_t ProgressWeight(const Otf2Definitions& defs, size_t l) {
  return std::max<uint64_t>(1, defs.location_event_counts[l]);
}

// Reports a location's events as they are read, never more than its share, and the whole share
// when it is done (however many it held).
class LocationProgress {
 public:
  explicit LocationProgress(uint64_t weight) : weight_(weight) {}
  ~LocationProgress() { progress::AddDone(weight_ - reported_); }
  LocationProgress(const LocationProgress&) = delete;
  LocationProgress& operator=(const LocationProgress&) = delete;
  void Read(uint64_t events) {
    const uint64_t add = std::min(events, weight_ - 1 - std::min(reported_, weight_ - 1));
    reported_ += add;
    progress::AddDone(add);
  }

 private:
  uint64_t weight_;
  uint64_t reported_ = 0;
};

// Reads a location's events in chunks, so that the bar moves within a large location too.
OTF2_ErrorCode ReadLocationEvents(OTF2_Reader* reader, OTF2_EvtReader* events, const LocationReader& loc,
                                  LocationProgress& bar) {
  constexpr uint64_t kChunk = uint64_t{1} << 16;
  while (true) {
    uint64_t read = 0;
    const OTF2_ErrorCode rc = OTF2_Reader_ReadLocalEvents(reader, events, kChunk, &read);
    bar.Read(read);
    if (rc != OTF2_SUCCESS || read < kChunk || !loc.status.ok()) return rc;
  }
}

struct ReaderCloser {
  void operator()(OTF2_Reader* r) const { OTF2_Reader_Close(r); }
};

// Reads batch `b`'s locations with `reader` (which has selected nothing yet).
void ReadBatch(OTF2_Reader* reader, const Otf2Definitions& defs, std::string_view file, bool strict, Batch& b) {
  b.state.defs = &defs;
  b.state.out = b.events;
  b.state.strict = strict;
  const size_t n = defs.location_refs.size();
  b.events->locations.resize(n);
  b.events->thread_barrier_events.assign(n, 0);
  for (uint32_t l : b.locations) OTF2_Reader_SelectLocation(reader, defs.location_refs[l]);
  b.status = ReadLocalDefinitions(reader, defs, file, b.locations);
  if (!b.status.ok()) return;
  OTF2_ErrorCode rc = OTF2_Reader_OpenEvtFiles(reader);
  if (rc != OTF2_SUCCESS) {
    b.status = Otf2Error(rc, fmt::format("{}: opening the event files", file));
    return;
  }
  OTF2_EvtReaderCallbacks* callbacks = NewCallbacks();
  for (uint32_t l : b.locations) {
    LocationReader loc{&b.state, static_cast<uint32_t>(l), &b.events->locations[l]};
    const uint64_t expected = defs.location_event_counts[l];
    if (expected < (uint64_t{1} << 32)) {
      loc.events->time.reserve(expected);
      loc.events->kind.reserve(expected);
      loc.events->arg.reserve(expected);
    }
    OTF2_EvtReader* events = OTF2_Reader_GetEvtReader(reader, defs.location_refs[l]);
    LocationProgress bar(ProgressWeight(defs, l));
    if (events == nullptr && expected == 0) continue;  // a location that recorded nothing
    if (events == nullptr) {
      b.missing.emplace_back(l, 0, "cannot be opened");
      if (strict) break;
      continue;
    }
    OTF2_Reader_RegisterEvtCallbacks(reader, events, callbacks, &loc);
    rc = ReadLocationEvents(reader, events, loc, bar);
    OTF2_Reader_CloseEvtReader(reader, events);
    if (!loc.status.ok()) {
      b.status = DataLoss(fmt::format("{}: {}", file, loc.status.message()));
      break;
    } else if (rc != OTF2_SUCCESS) {
      // A location file never written or lost (APEX's 8.evt), or damaged part way: the other
      // locations are analysed, with what this one held before the damage.
      b.missing.emplace_back(l, loc.events->size(), OTF2_Error_GetDescription(rc));
      if (strict) break;
    }
  }
  OTF2_EvtReaderCallbacks_Delete(callbacks);
  OTF2_Reader_CloseEvtFiles(reader);
}

// Contiguous ranges of locations with about the same number of events each, at most `threads`.
std::vector<Batch> Batches(const Otf2Definitions& defs, unsigned threads, const LocationSet& share) {
  std::vector<uint32_t> selected;
  for (uint32_t l = 0; l < defs.location_refs.size(); ++l)
    if (share.Holds(l)) selected.push_back(l);
  const size_t n = selected.size();
  uint64_t total = 0;
  for (uint32_t l : selected) total += defs.location_event_counts[l];
  const size_t count = std::max<size_t>(1, std::min<size_t>(threads, n));
  std::vector<Batch> batches(count);
  size_t i = 0;
  uint64_t before = 0;
  for (size_t k = 0; k < count; ++k) {
    const size_t first = i;
    const uint64_t target = total / count * (k + 1);
    // Each batch takes at least one location and leaves one for each batch after it.
    while (i < n && (k + 1 == count || ((i == first || before < target) && n - i > count - k - 1))) {
      before += defs.location_event_counts[selected[i++]];
    }
    batches[k].locations.assign(selected.begin() + first, selected.begin() + i);
  }
  return batches;
}

// What a batch counted, added to the counts of the batches before it.
void AddCounts(const ReadState& batch, ReadState& counts) {
  for (int k = 0; k < kSkippedKindCount; ++k) {
    const SkipCounter& c = batch.skipped[k];
    if (counts.skipped[k].count == 0) {
      counts.skipped[k] = c;  // the first, in location order
    } else {
      counts.skipped[k].count += c.count;
    }
  }
  counts.ignored_attributes += batch.ignored_attributes;
  counts.unknown_requests += batch.unknown_requests;
}

// Adds batch `b` to `out` (the batches before it are in already): its record indices and marker
// strings renumbered, so the result is the one reading every location in order would give.
void MergeBatch(Batch& b, Otf2Events& out, TraceBuilder& builder, ReadState& counts) {
  if (b.events == &out) return AddCounts(b.state, counts);
  const uint32_t p2p = static_cast<uint32_t>(out.p2p.size()), colls = static_cast<uint32_t>(out.collectives.size()),
                 syncs = static_cast<uint32_t>(out.syncs.size());
  for (uint32_t l : b.locations) {
    RawEvents& ev = b.events->locations[l];
    for (uint32_t i = 0; i < ev.size(); ++i) {
      switch (ev.kind[i]) {
        case EventKind::kSend: case EventKind::kRecv: case EventKind::kSendComplete: case EventKind::kRecvPost:
          ev.arg[i] += p2p; break;
        case EventKind::kCollBegin: case EventKind::kCollEnd: ev.arg[i] += colls; break;
        case EventKind::kSync: ev.arg[i] += syncs; break;
        case EventKind::kMarker: ev.arg[i] = builder.Intern(b.strings.Get(StringId(ev.arg[i]))).value; break;
        default: break;
      }
    }
    out.locations[l] = std::move(ev);
    out.thread_barrier_events[l] = b.events->thread_barrier_events[l];
  }
  const Otf2Events& in = *b.events;
  out.p2p.insert(out.p2p.end(), in.p2p.begin(), in.p2p.end());
  out.collectives.insert(out.collectives.end(), in.collectives.begin(), in.collectives.end());
  out.syncs.insert(out.syncs.end(), in.syncs.begin(), in.syncs.end());
  if (in.has_program_begin && (!out.has_program_begin || in.earliest_program_begin < out.earliest_program_begin)) {
    out.earliest_program_begin = in.earliest_program_begin;
    out.has_program_begin = true;
  }
  AddCounts(b.state, counts);
}

}  // namespace

Status ReadOtf2Events(OTF2_Reader* reader, const Otf2Definitions& defs, TraceBuilder& builder, std::string_view file,
                      bool strict, unsigned threads, const LocationSet& share, Otf2Events* out) {
  const size_t n = defs.location_refs.size();
  out->locations.resize(n);
  out->thread_barrier_events.assign(n, 0);
  std::vector<Batch> batches = Batches(defs, threads, share);
  batches[0].events = out;
  batches[0].state.builder = &builder;
  for (Batch& b : batches) b.state.strings = &b.strings;
  uint64_t weight = 0;
  for (const Batch& b : batches)
    for (uint32_t l : b.locations) weight += ProgressWeight(defs, l);
  progress::Begin("reading events", weight);
  // Batch 0 reads with `reader`; each other batch opens the archive again (an OTF2_Reader is one
  // thread's).
  const bool none = batches.front().locations.empty();  // no location, or an empty share
  ParallelFor(none ? 0 : batches.size(), static_cast<unsigned>(batches.size()), [&](size_t k) {
    if (k == 0) return ReadBatch(reader, defs, file, strict, batches[0]);
    std::unique_ptr<OTF2_Reader, ReaderCloser> own(OTF2_Reader_Open(std::string(file).c_str()));
    OTF2_ErrorCode rc = own == nullptr ? OTF2_ERROR_INVALID : OTF2_Reader_SetSerialCollectiveCallbacks(own.get());
    if (rc != OTF2_SUCCESS) {
      batches[k].status = Otf2Error(rc, fmt::format("{}: opening the archive again for locations {}..{}", file,
                                                    batches[k].locations.front(), batches[k].locations.back()));
      return;
    }
    ReadBatch(own.get(), defs, file, strict, batches[k]);
  });
  ReadState counts{&defs, nullptr, nullptr, out};
  MissingFiles missing{defs, file, strict};
  for (Batch& b : batches) {
    for (const auto& [l, kept, why] : b.missing) GS_RETURN_IF_ERROR(missing.Add(l, kept, why));
    GS_RETURN_IF_ERROR(b.status);
    MergeBatch(b, *out, builder, counts);
  }
  ReportSkipped(counts, builder, file);
  missing.Report(builder);
  return OkStatus();
}

}  // namespace grainscope::otf2
