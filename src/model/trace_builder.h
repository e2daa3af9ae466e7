// TraceBuilder: the only way to make a Trace. Readers add definitions and append each location's
// events in time order; Finish() checks the invariants listed in trace.h and hands the Trace out.
//
// The builder's checks are the last line of defence: a reader that knows line numbers or byte
// offsets should catch bad input first and say where it is.
//
// Improper nesting is the one defect real tools write that the builder repairs rather than refuses
// (unless SetRepairNesting(false), `--strict`), so that every reader gets the same rule: a Leave of
// a region with regions opened after it still open closes those first, at the Leave's time
// (improper_nesting_repaired); a Leave of a region that is not open is dropped
// (unmatched_leaves_dropped). Regions still open at a location's end (the run stopped inside them)
// are closed at its last timestamp (unclosed_regions), also under `--strict`. Each is counted per
// location in the trace's diagnostics, here only: a reader hands its regions' events over as it
// read them.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"
#include "model/trace_share.h"

namespace grainscope {

struct LateBarrierEnds;  // model/barrier_release.h
struct ThreadSync;       // model/thread_sync.h

struct MessageInfo {
  LocationId sender;
  LocationId receiver;
  int32_t tag = 0;
  std::string_view name;
  uint64_t bytes = 0;
  CommunicatorId communicator;
  RegionId send_grain;  // optional: the grain that produced it
  RegionId recv_grain;  // optional: the grain that consumes it
};

class TraceBuilder {
 public:
  explicit TraceBuilder(std::string format);

  StringId Intern(std::string_view s) { return body_.strings.Intern(s); }
  LocationId AddLocation(std::string_view name, LocationKind kind, int64_t external_id);
  // For threads: the index of the process location they belong to (default: themselves).
  void SetLocationGroup(LocationId loc, uint32_t group) { body_.locations[loc.value].group = group; }
  uint32_t LocationGroup(LocationId loc) const { return body_.locations[loc.value].group; }
  // A region whose format says `role`; the builder makes the role precise where the name is a
  // well-known call's (ResolveRegionRole: an MPI_Wait a writer called a function is a wait), so
  // every reader gets the same roles for the same calls.
  RegionId AddRegion(std::string_view name, RegionRole role, int64_t external_id);
  CommunicatorId AddCommunicator(std::string_view name, std::vector<LocationId> members);
  void SetOrigin(TimeNs origin) { body_.origin_ns = origin; }
  // `t` as every note and report shows a time: from the trace's origin (set it first).
  TimeNs SinceOrigin(TimeNs t) const { return t - body_.origin_ns; }
  void AddMetadata(std::string_view key, std::string_view value);
  // true (the default): Finish repairs improper nesting as the header comment says; false
  // (`--strict`): Finish refuses it (and still closes what is open at a location's end).
  void SetRepairNesting(bool repair) { repair_nesting_ = repair; }
  // false: Finish keeps the sync events as they are, without the edges and barrier instances it
  // derives from them (model/thread_sync.h): for readers that merge such traces first.
  void SetDeriveThreadSync(bool derive) { derive_thread_sync_ = derive; }
  // A share of a trace (model/trace_share.h): only these locations have events, so only these
  // are named when they have none.
  void SetEventLocations(LocationSet locations) { event_locations_ = std::move(locations); }
  // An MPI trace: Finish adds the rendezvous edges of its messages above `bytes` (model/rendezvous.h)
  // and keeps the limit and `source` (where it comes from) as metadata, unless the trace holds
  // rendezvous edges already.
  void SetEagerLimit(uint64_t bytes, std::string_view source) {
    eager_limit_ = bytes;
    eager_limit_source_ = std::string(source);
    eager_limit_is_fallback_ = false;
  }
  // The eager limit a file grainscope wrote keeps in its metadata (a converted trace), else
  // SetEagerLimit(bytes, source).
  void SetEagerLimitUnlessRecorded(uint64_t bytes, std::string_view source);
  // Rendezvous edges only when the metadata holds an eager limit (a trace grainscope converted
  // from an MPI trace): formats that are not MPI's own.
  void SetEagerLimitIfRecorded() { eager_limit_is_fallback_ = true; }
  // `trace` with its rendezvous edges decided again under `bytes` (a user's --eager-limit): the
  // edges of any other limit are dropped, and the limit and `source` become its metadata, so that
  // every analysis reads one decision. `trace` must be the only owner of its body (just read).
  static Result<Trace> WithEagerLimit(Trace trace, uint64_t bytes, std::string_view source);
  Diagnostics& diagnostics() { return body_.diagnostics; }

  size_t location_count() const { return body_.locations.size(); }
  std::string_view LocationName(LocationId loc) const { return str(body_.locations[loc.value].name); }
  size_t region_count() const { return body_.regions.size(); }
  size_t message_count() const { return body_.messages.size(); }
  // Whether region r is a send that completes only once matched (MPI_Ssend): model/rendezvous.h.
  bool SynchronousSend(RegionId r) const { return r.value < body_.regions.size() && body_.regions[r.value].synchronous_send; }
  size_t event_count(LocationId loc) const { return times_[loc.value].size(); }
  void Reserve(LocationId loc, size_t events);

  EventIndex Enter(LocationId loc, TimeNs t, RegionId r) { return Append(loc, t, EventKind::kEnter, r.value); }
  EventIndex Leave(LocationId loc, TimeNs t, RegionId r) { return Append(loc, t, EventKind::kLeave, r.value); }
  // An Enter of one instance of `r` that has an id of its own (InstanceTable): a grain's
  // execution that the program numbered. Its Leave is a plain Leave.
  EventIndex EnterInstance(LocationId loc, TimeNs t, RegionId r, int64_t id);
  EventIndex Marker(LocationId loc, TimeNs t, StringId label) {
    return Append(loc, t, EventKind::kMarker, label.value);
  }
  // A thread's synchronisation (model/thread_sync.h): Finish derives the edges and barriers.
  EventIndex Sync(LocationId loc, TimeNs t, SyncKind kind, uint64_t object, uint32_t arg = 0);
  // A marker as a format without sync records carries it: a sync event when `label` is a sync
  // label (SyncLabel), else a marker.
  EventIndex MarkerOrSync(LocationId loc, TimeNs t, std::string_view label);
  EventIndex MarkerOrSync(LocationId loc, TimeNs t, StringId label);

  // A message row; its send and receive events are appended separately (they usually come from
  // different places in the input). A side never appended stays kNoEvent: an unmatched message.
  MessageId AddMessage(const MessageInfo& info);
  EventIndex Send(LocationId loc, TimeNs t, MessageId m);
  EventIndex SendComplete(LocationId loc, TimeNs t, MessageId m) {
    return Append(loc, t, EventKind::kSendComplete, m.value);
  }
  EventIndex RecvPost(LocationId loc, TimeNs t, MessageId m) {
    return Append(loc, t, EventKind::kRecvPost, m.value);
  }
  EventIndex Recv(LocationId loc, TimeNs t, MessageId m);

  CollectiveId AddCollective(CollectiveOp op, CommunicatorId comm, LocationId root);
  EventIndex CollBegin(LocationId loc, TimeNs t, CollectiveId c, uint64_t bytes_sent,
                       uint64_t bytes_received);
  EventIndex CollEnd(LocationId loc, TimeNs t, CollectiveId c);

  // A dependency edge (dependencies.h) between two events, appended before or after this call;
  // Finish checks that they exist. `to` may be stamped before `from` (clocks disagree): that is
  // kept and counted as dependencies_back_in_time.
  DependencyId AddDependency(DependencyKind kind, LocationId from, EventIndex from_event, LocationId to,
                             EventIndex to_event);

  // A merge of traces read apart (model/trace_parts.h) moves whole locations in: the events of
  // location `loc` of `trace`, taken out (not copied) when `trace` owns its body alone (just read)
  // and its times per location, else nullopt; `trace`'s location is empty afterwards. In place,
  // their args turned into this builder's ids, AdoptEvents makes them `loc`'s events (it has none
  // yet), and the Note* calls register what Send, Recv, CollBegin, CollEnd and EnterInstance
  // would for the event at `e`, AddSyncRow what Sync would (its row is the event's arg).
  struct LocationEvents {
    std::vector<TimeNs> time;
    std::vector<EventKind> kind;
    std::vector<uint32_t> arg;
  };
  static std::optional<LocationEvents> TakeEvents(Trace& trace, LocationId loc);
  void AdoptEvents(LocationId loc, LocationEvents events);
  void NoteSend(LocationId loc, EventIndex e, MessageId m);
  void NoteRecv(LocationId loc, EventIndex e, MessageId m);
  void NoteCollBegin(LocationId loc, EventIndex e, CollectiveId c, uint64_t bytes_sent, uint64_t bytes_received);
  void NoteCollEnd(LocationId loc, EventIndex e, CollectiveId c);
  void NoteInstance(LocationId loc, EventIndex e, int64_t id);
  uint32_t AddSyncRow(SyncKind kind, uint64_t object, uint32_t arg);

  // Checks the invariants, makes location ids unique (ranks and processors keep theirs; a thread
  // whose id another location has takes the next id above them all) and returns the Trace; the
  // builder is empty afterwards.
  Result<Trace> Finish();

 private:
  struct CollectiveMember {
    CollectiveId collective;
    LocationId location;
    EventIndex begin = kNoEvent;
    EventIndex end = kNoEvent;
    uint64_t bytes_sent = 0;
    uint64_t bytes_received = 0;
  };

  // What repairing one location's nesting did (counts of the three repairs).
  struct NestingRepairs {
    uint64_t closed_early = 0, dropped_leaves = 0, closed_at_end = 0;
    std::string first_closed_early, first_dropped, first_closed_at_end;  // the first of each
  };

  EventIndex Append(LocationId loc, TimeNs t, EventKind kind, uint32_t arg);
  // Every location checked (CheckLocation), the improper ones repaired (RepairNesting) and the
  // repairs reported (trace_builder_nesting.cc).
  Status CheckNesting();
  // With repair_nesting_, a nesting defect only sets *improper (the rest is still checked).
  Status CheckLocation(LocationId loc, bool* improper) const;
  void ReportEmptyLocations();
  NestingRepairs RepairNesting(LocationId loc);
  void RenumberEvents(LocationId loc, const std::vector<EventIndex>& new_index);
  void ReportNestingRepairs(const std::vector<std::pair<LocationId, NestingRepairs>>& repairs);
  Status BuildCollectiveTable();
  void TakeRecordedEagerLimit();
  void AddRendezvousEdges();
  static void DecideRendezvous(TraceBody& body, std::span<const std::span<const TimeNs>> times, uint64_t bytes,
                               std::string_view source);
  void AddThreadSync();
  void ReportLateBarrierEnds(const LateBarrierEnds& late);
  void CloseNeverLeftBarriers(ThreadSync& ts);
  Status CheckDependencies();
  void MakeLocationIdsUnique();
  void SortInstances();

  std::string_view str(StringId id) const { return body_.strings.Get(id); }
  std::string_view RegionName(uint32_t region) const;  // "?" for an unknown one

  std::string format_;
  TraceBody body_;
  std::vector<std::vector<TimeNs>> times_;  // per location; the trace's timeline once finished
  std::vector<CollectiveMember> members_;
  LocationSet event_locations_;
  bool repair_nesting_ = true;
  bool derive_thread_sync_ = true;
  std::optional<uint64_t> eager_limit_;
  std::string eager_limit_source_;
  bool eager_limit_is_fallback_ = false;
};

}  // namespace grainscope
