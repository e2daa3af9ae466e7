// Trace: the one in-memory model every grainscope analysis reads.
//
// Definitions (locations, regions, communicators, strings), then per location its events in time
// order, stored column-wise (time[], kind[], arg[]). Point-to-point messages and collective
// instances are tables of their own whose rows point back into the event columns. There are no
// per-event objects: an event is a row index into its location's columns.
//
// Every reader builds a Trace through TraceBuilder (trace_builder.h), which checks the invariants
// documented here before handing the Trace out:
//   * per location, times never decrease;
//   * Enter/Leave are properly nested on each location (a Leave closes the innermost open region);
//   * a message row's send_event (recv_event) is a kSend (kRecv) event on its sender (receiver)
//     that names the message, or kNoEvent when that side was not recorded;
//   * a dependency row's two events exist, and on one location the `from` event comes first.
// Times are int64 nanoseconds. `origin_ns` is the run's time zero (the seed's initialize_clock()).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/dependencies.h"
#include "model/sync_table.h"
#include "model/diagnostics.h"
#include "model/ids.h"
#include "model/region_roles.h"
#include "model/string_pool.h"
#include "model/timeline.h"

namespace grainscope {

enum class EventKind : uint8_t {
  kEnter = 0,         // arg: RegionId. A region (grain, function, communication call) begins.
  kLeave = 1,         // arg: RegionId. The innermost open region ends.
  kSend = 2,          // arg: MessageId. A message is sent (blocking send, or non-blocking start).
  kSendComplete = 3,  // arg: MessageId. The request of a non-blocking send completed.
  kRecvPost = 4,      // arg: MessageId. A non-blocking receive was posted.
  kRecv = 5,          // arg: MessageId. The message has been received (receive completion).
  kCollBegin = 6,     // arg: CollectiveId. This location enters a collective operation.
  kCollEnd = 7,       // arg: CollectiveId. This location leaves it.
  kMarker = 8,        // arg: StringId. A user marker (a point in time with a label).
  kSync = 9,          // arg: row of the SyncTable. A thread synchronises (model/thread_sync.h).
};
inline constexpr int kEventKindCount = 10;
std::string_view EventKindName(EventKind kind);

// What a location is. OpenMP threads and GPU (accelerator) streams have kinds of their own: an
// OpenMP team thread runs forked work of its process, a GPU stream runs kernels and copies that
// a CPU location launched, and users tell them apart from ranks and plain threads in every view.
enum class LocationKind : uint8_t { kProcessor, kProcess, kThread, kRank, kOpenMpThread, kGpuStream };
inline constexpr LocationKind kLocationKinds[] = {LocationKind::kProcessor, LocationKind::kProcess,
                                                  LocationKind::kThread,    LocationKind::kRank,
                                                  LocationKind::kOpenMpThread, LocationKind::kGpuStream};
std::string_view LocationKindName(LocationKind kind);
// The kind LocationKindName(kind) names; false (and `kind` untouched) for any other text.
bool ParseLocationKind(std::string_view name, LocationKind* kind);

enum class CollectiveOp : uint8_t {
  kBarrier, kBroadcast, kReduce, kAllreduce, kGather, kScatter, kAllgather, kAlltoall, kScan,
  kReduceScatter, kOther,
};
std::string_view CollectiveOpName(CollectiveOp op);
// How data flows in a collective; decides which participants wait for which.
// kPrefix: scan and exscan, where a member's result needs the contributions of the lower ranks.
enum class CollectiveShape : uint8_t { kAllToAll, kOneToAll, kAllToOne, kPrefix, kOther };
CollectiveShape ShapeOf(CollectiveOp op);

struct Location {
  StringId name;
  LocationKind kind = LocationKind::kProcessor;
  int64_t external_id = 0;  // the id the trace used: seed processor id, MPI rank, thread number
  uint32_t group = 0;       // the process (rank) a thread belongs to; equals its own index otherwise
};

struct Region {
  StringId name;
  RegionRole role = RegionRole::kFunction;  // model/region_roles.h
  // A send call that completes only once its message is matched (MPI_Ssend): its messages are
  // rendezvous whatever their size (model/rendezvous.h).
  bool synchronous_send = false;
  int64_t external_id = 0;  // the id the trace used: seed grain id, OTF2 region ref
};

struct Communicator {
  StringId name;
  std::vector<LocationId> members;  // members[rank] = the location with that rank
};

// One location's events, column-wise: views into the trace's storage. Row i of every column is
// event i. `time` comes from the trace's timeline (recorded, or a what-if one: Trace::Retimed).
struct EventColumns {
  std::span<const TimeNs> time;
  std::span<const EventKind> kind;
  std::span<const uint32_t> arg;

  size_t size() const { return time.size(); }
};

// Does a location's collective membership that begins at event `begin` and ends at `end` end with
// the call it began in, as a blocking collective does (MPI_Allreduce: begin, nested calls only,
// end, then the leave of the region that was innermost at the begin)? A non-blocking one
// (MPI_Ibarrier ... MPI_Wait) does not. Writers whose formats tie a collective to its call (.gst's
// markers, OTF2's MpiCollectiveBegin/End) write the others in their non-blocking form.
bool EndsWithItsCall(const EventColumns& ev, EventIndex begin, EventIndex end);

// Point-to-point messages, one row each, column-wise.
struct MessageTable {
  std::vector<LocationId> sender;
  std::vector<LocationId> receiver;
  std::vector<EventIndex> send_event;  // kSend event on `sender`, or kNoEvent
  std::vector<EventIndex> recv_event;  // kRecv event on `receiver`, or kNoEvent
  std::vector<int32_t> tag;
  std::vector<StringId> name;  // seed structure name; empty string when the format has none
  std::vector<uint64_t> bytes;
  std::vector<CommunicatorId> communicator;
  // The grains that produced and consume the message when the format names them (the seed's
  // sendBegin/recvBegin lines carry a grain id); invalid otherwise.
  std::vector<RegionId> send_grain;
  std::vector<RegionId> recv_grain;

  size_t size() const { return sender.size(); }
  bool matched(MessageId m) const {
    return send_event[m.value] != kNoEvent && recv_event[m.value] != kNoEvent;
  }
};

// Collective instances: one row per instance, its participants in a flat array.
struct CollectiveTable {
  std::vector<CollectiveOp> op;
  std::vector<CommunicatorId> communicator;
  std::vector<LocationId> root;           // invalid for rootless operations
  std::vector<uint32_t> first_member;     // participants of instance c: [first_member[c], first_member[c+1])

  // Participants, grouped by instance, each group in location order.
  std::vector<LocationId> member_location;
  std::vector<EventIndex> member_begin;  // kCollBegin event on member_location
  std::vector<EventIndex> member_end;    // kCollEnd event on member_location
  std::vector<uint64_t> member_bytes_sent;
  std::vector<uint64_t> member_bytes_received;

  size_t size() const { return op.size(); }
  uint32_t member_count(CollectiveId c) const {
    return first_member[c.value + 1] - first_member[c.value];
  }
  // Location l's member row of instance c (members are in location order), or UINT32_MAX.
  uint32_t member_row(CollectiveId c, LocationId l) const;
};

// Where a body keeps its TraceIndex (trace_index.h), built on first use: created with the body,
// so the index is built once however many traces share the body.
struct TraceIndexSlot;
std::shared_ptr<TraceIndexSlot> NewTraceIndexSlot();
class TraceIndex;
// The same for the body's happens-before structure (hb_graph.h).
std::shared_ptr<void> NewHbSlot();
struct HbStructure;

// Region instances with an id of their own: a grain whose program numbers its executions
// (gs_grain_begin_id) is one region, its call site, and each execution's id is a row here, keyed
// by its Enter event. Ordered by location, then event; an Enter without a row has no id.
struct InstanceTable {
  std::vector<LocationId> location;
  std::vector<EventIndex> enter;
  std::vector<int64_t> id;

  size_t size() const { return id.size(); }
};

struct MetadataEntry {
  StringId key;
  StringId value;
};

// Everything a trace holds but its times: shared, never copied, by a trace and its retimed views.
struct TraceBody {
  TraceBody() = default;
  TraceBody(TraceBody&&) = default;
  TraceBody& operator=(TraceBody&&) = default;
  TraceBody(const TraceBody&) = delete;  // a copy would share the index slot of another body

  StringPool strings;
  std::vector<Location> locations;
  std::vector<Region> regions;
  std::vector<Communicator> communicators;
  std::vector<std::vector<EventKind>> kinds;  // per location
  std::vector<std::vector<uint32_t>> args;    // per location
  std::vector<uint64_t> flat_offsets;         // per location: events of the locations before it
  MessageTable messages;
  CollectiveTable collectives;
  DependencyTable dependencies;
  SyncTable syncs;
  InstanceTable instances;
  std::vector<MetadataEntry> metadata;
  Diagnostics diagnostics;
  TimeNs origin_ns = 0;
  std::shared_ptr<TraceIndexSlot> index_slot = NewTraceIndexSlot();
  std::shared_ptr<void> hb_slot = NewHbSlot();
};

class Trace {
 public:
  Trace() = default;
  Trace(Trace&&) = default;
  Trace& operator=(Trace&&) = default;

  std::string_view format() const { return format_; }
  const StringPool& strings() const { return body_->strings; }
  std::string_view str(StringId id) const { return body_->strings.Get(id); }

  std::span<const Location> locations() const { return body_->locations; }
  const Location& location(LocationId id) const { return body_->locations[id.value]; }
  std::span<const Region> regions() const { return body_->regions; }
  const Region& region(RegionId id) const { return body_->regions[id.value]; }
  std::span<const Communicator> communicators() const { return body_->communicators; }

  const EventColumns& events(LocationId id) const { return columns_[id.value]; }
  // Where location `id`'s events start when every location's events are laid end to end
  // (location 0's, then location 1's, ...): the flat order per-event arrays of analyses use.
  uint64_t flat_offset(LocationId id) const { return body_->flat_offsets[id.value]; }
  std::span<const uint64_t> flat_offsets() const { return body_->flat_offsets; }
  const Timeline& timeline() const { return timeline_; }
  // The derived per-event columns (call nesting; trace_index.h), built on the first call and
  // shared with every trace that shares this one's body (its retimed views). Thread-safe.
  const TraceIndex& index() const;
  // The happens-before structure (hb_graph.h: read it through HbGraph), its `parts`
  // (HbStructure::Part) built on the first call that asks for them and shared like index().
  // Thread-safe.
  const HbStructure& hb(unsigned parts) const;
  const MessageTable& messages() const { return body_->messages; }
  const CollectiveTable& collectives() const { return body_->collectives; }
  // Every other cross-location edge: lock hand-over, fork/join, GPU launch and sync (dependencies.h).
  const DependencyTable& dependencies() const { return body_->dependencies; }
  const SyncTable& syncs() const { return body_->syncs; }
  const InstanceTable& instances() const { return body_->instances; }
  // The id of the instance whose Enter event is `enter` on `loc` (InstanceTable), or nullopt.
  std::optional<int64_t> InstanceId(LocationId loc, EventIndex enter) const;
  std::span<const MetadataEntry> metadata() const { return body_->metadata; }
  // The metadata value for `key`, or an empty view.
  std::string_view Metadata(std::string_view key) const;

  // Problems the reader survived (skipped lines, unknown records, unmatched messages).
  const Diagnostics& diagnostics() const { return body_->diagnostics; }

  TimeNs origin_ns() const { return body_->origin_ns; }
  // Earliest and latest event time over all locations (origin_ns when there are no events).
  TimeNs start_ns() const { return start_ns_; }
  TimeNs end_ns() const { return end_ns_; }
  uint64_t event_count() const { return timeline_.event_count(); }

  // This trace with other times for its events (replayed, clock-corrected, compensated): shares
  // everything else with this trace, copies nothing; its format() is format() + format_suffix.
  // Fails when `times` is not a timeline of this trace's events.
  Result<Trace> Retimed(Timeline times, std::string_view format_suffix) const;
  // Another Trace of the same events and times: shares the body, copies the times (8 bytes per
  // event). For a holder that hands out traces it keeps (format/trace_reader.h: memory traces).
  Trace Copy() const;

 private:
  friend class TraceBuilder;
  Trace(std::string format, std::shared_ptr<const TraceBody> body, Timeline times);

  std::string format_;
  // Every body is made a TraceBody (not a const one), so that the builder may take over a body a
  // trace owns alone (TraceBuilder::TakeEvents, WithEagerLimit).
  std::shared_ptr<const TraceBody> body_ = std::make_shared<TraceBody>();
  Timeline timeline_;
  std::vector<EventColumns> columns_;  // per location: views into body_ and timeline_
  TimeNs start_ns_ = 0;
  TimeNs end_ns_ = 0;
};

// Per region, the first region with its name and role (itself when it is the first): the row
// under which tables aggregate regions (issue 33: a function defined twice, by two OTF2 region
// references or two files of a merged run, is one row of every profile).
std::vector<uint32_t> FirstRegionOfName(const Trace& trace);

// The location a user named on the command line: by its name or its external id (the first match).
std::optional<LocationId> FindLocationNamed(const Trace& trace, std::string_view name);

}  // namespace grainscope
