#include "model/trace_builder.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "base/progress.h"
#include "model/barrier_release.h"
#include "model/metadata_keys.h"
#include "model/rendezvous.h"
#include "model/thread_sync.h"

namespace grainscope {

TraceBuilder::TraceBuilder(std::string format) : format_(std::move(format)) {}

LocationId TraceBuilder::AddLocation(std::string_view name, LocationKind kind, int64_t external_id) {
  LocationId id(static_cast<uint32_t>(body_.locations.size()));
  body_.locations.push_back(Location{Intern(name), kind, external_id, id.value});
  times_.emplace_back();
  body_.kinds.emplace_back();
  body_.args.emplace_back();
  return id;
}

RegionId TraceBuilder::AddRegion(std::string_view name, RegionRole role, int64_t external_id) {
  RegionId id(static_cast<uint32_t>(body_.regions.size()));
  // The format's role, made precise by the call's name (model/region_roles.h): one rule for every
  // reader.
  const CallRole resolved = ResolveRegionRole(role, name);
  body_.regions.push_back(Region{Intern(name), resolved.role, resolved.synchronous_send, external_id});
  return id;
}

CommunicatorId TraceBuilder::AddCommunicator(std::string_view name, std::vector<LocationId> members) {
  CommunicatorId id(static_cast<uint32_t>(body_.communicators.size()));
  body_.communicators.push_back(Communicator{Intern(name), std::move(members)});
  return id;
}

void TraceBuilder::AddMetadata(std::string_view key, std::string_view value) {
  body_.metadata.push_back(MetadataEntry{Intern(key), Intern(value)});
}

void TraceBuilder::Reserve(LocationId loc, size_t events) {
  times_[loc.value].reserve(events);
  body_.kinds[loc.value].reserve(events);
  body_.args[loc.value].reserve(events);
}

EventIndex TraceBuilder::Append(LocationId loc, TimeNs t, EventKind kind, uint32_t arg) {
  std::vector<TimeNs>& times = times_[loc.value];
  auto index = static_cast<EventIndex>(times.size());
  times.push_back(t);
  body_.kinds[loc.value].push_back(kind);
  body_.args[loc.value].push_back(arg);
  return index;
}

MessageId TraceBuilder::AddMessage(const MessageInfo& info) {
  MessageTable& m = body_.messages;
  MessageId id(static_cast<uint32_t>(m.size()));
  m.sender.push_back(info.sender);
  m.receiver.push_back(info.receiver);
  m.send_event.push_back(kNoEvent);
  m.recv_event.push_back(kNoEvent);
  m.tag.push_back(info.tag);
  m.name.push_back(Intern(info.name));
  m.bytes.push_back(info.bytes);
  m.communicator.push_back(info.communicator);
  m.send_grain.push_back(info.send_grain);
  m.recv_grain.push_back(info.recv_grain);
  return id;
}

EventIndex TraceBuilder::Send(LocationId loc, TimeNs t, MessageId m) {
  EventIndex e = Append(loc, t, EventKind::kSend, m.value);
  NoteSend(loc, e, m);
  return e;
}

void TraceBuilder::NoteSend(LocationId loc, EventIndex e, MessageId m) {
  body_.messages.send_event[m.value] = e;
  if (!body_.messages.sender[m.value].valid()) body_.messages.sender[m.value] = loc;  // where its send is
}

EventIndex TraceBuilder::Recv(LocationId loc, TimeNs t, MessageId m) {
  EventIndex e = Append(loc, t, EventKind::kRecv, m.value);
  NoteRecv(loc, e, m);
  return e;
}

void TraceBuilder::NoteRecv(LocationId loc, EventIndex e, MessageId m) {
  body_.messages.recv_event[m.value] = e;
  if (!body_.messages.receiver[m.value].valid()) body_.messages.receiver[m.value] = loc;
}

EventIndex TraceBuilder::Sync(LocationId loc, TimeNs t, SyncKind kind, uint64_t object, uint32_t arg) {
  return Append(loc, t, EventKind::kSync, AddSyncRow(kind, object, arg));
}

uint32_t TraceBuilder::AddSyncRow(SyncKind kind, uint64_t object, uint32_t arg) {
  SyncTable& s = body_.syncs;
  const uint32_t row = static_cast<uint32_t>(s.size());
  s.kind.push_back(kind);
  s.object.push_back(object);
  s.arg.push_back(arg);
  return row;
}

EventIndex TraceBuilder::MarkerOrSync(LocationId loc, TimeNs t, std::string_view label) {
  if (auto sync = ParseSyncLabel(label)) return Sync(loc, t, sync->kind, sync->object, sync->arg);
  return Marker(loc, t, Intern(label));
}

EventIndex TraceBuilder::MarkerOrSync(LocationId loc, TimeNs t, StringId label) {
  const std::string_view text = body_.strings.Get(label);
  if (text.starts_with(kSyncLabelPrefix)) {
    if (auto sync = ParseSyncLabel(text)) return Sync(loc, t, sync->kind, sync->object, sync->arg);
  }
  return Marker(loc, t, label);
}

CollectiveId TraceBuilder::AddCollective(CollectiveOp op, CommunicatorId comm, LocationId root) {
  CollectiveTable& c = body_.collectives;
  CollectiveId id(static_cast<uint32_t>(c.size()));
  c.op.push_back(op);
  c.communicator.push_back(comm);
  c.root.push_back(root);
  return id;
}

EventIndex TraceBuilder::CollBegin(LocationId loc, TimeNs t, CollectiveId c, uint64_t bytes_sent,
                                   uint64_t bytes_received) {
  EventIndex e = Append(loc, t, EventKind::kCollBegin, c.value);
  NoteCollBegin(loc, e, c, bytes_sent, bytes_received);
  return e;
}

void TraceBuilder::NoteCollBegin(LocationId loc, EventIndex e, CollectiveId c, uint64_t bytes_sent,
                                 uint64_t bytes_received) {
  members_.push_back(CollectiveMember{c, loc, e, kNoEvent, bytes_sent, bytes_received});
}

EventIndex TraceBuilder::CollEnd(LocationId loc, TimeNs t, CollectiveId c) {
  EventIndex e = Append(loc, t, EventKind::kCollEnd, c.value);
  NoteCollEnd(loc, e, c);
  return e;
}

void TraceBuilder::NoteCollEnd(LocationId loc, EventIndex e, CollectiveId c) {
  // The open membership is almost always among the last few rows.
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    if (it->collective == c && it->location == loc && it->end == kNoEvent) {
      it->end = e;
      return;
    }
  }
  members_.push_back(CollectiveMember{c, loc, kNoEvent, e, 0, 0});
}

DependencyId TraceBuilder::AddDependency(DependencyKind kind, LocationId from, EventIndex from_event, LocationId to,
                                         EventIndex to_event) {
  DependencyTable& d = body_.dependencies;
  DependencyId id(static_cast<uint32_t>(d.size()));
  d.kind.push_back(kind);
  d.from_location.push_back(from);
  d.from_event.push_back(from_event);
  d.to_location.push_back(to);
  d.to_event.push_back(to_event);
  return id;
}

// Each end must be an event; on one location the edge must point forward (program order already
// orders the events there, and an edge back would be a cycle no sweep could run).
Status TraceBuilder::CheckDependencies() {
  const DependencyTable& d = body_.dependencies;
  auto exists = [&](LocationId l, EventIndex e) { return l.value < times_.size() && e < times_[l.value].size(); };
  auto where = [&](LocationId l, EventIndex e) {
    return fmt::format("{} event {}", l.value < times_.size() ? str(body_.locations[l.value].name) : "unknown location", e);
  };
  for (uint32_t i = 0; i < d.size(); ++i) {
    const LocationId from = d.from_location[i], to = d.to_location[i];
    const std::string_view kind = DependencyKindName(d.kind[i]);
    if (static_cast<int>(d.kind[i]) >= kDependencyKindCount)
      return DataLoss(fmt::format("dependency {} has an unknown kind {}", i, static_cast<int>(d.kind[i])));
    if (!exists(from, d.from_event[i]) || !exists(to, d.to_event[i])) {
      return DataLoss(fmt::format("{} dependency {} from {} to {}: no such event", kind, i,
                                  where(from, d.from_event[i]), where(to, d.to_event[i])));
    }
    if (from == to && d.from_event[i] >= d.to_event[i]) {
      return DataLoss(fmt::format("{} dependency {} from {} to event {} of the same location does not point forward",
                                  kind, i, where(from, d.from_event[i]), d.to_event[i]));
    }
    const TimeNs sent = times_[from.value][d.from_event[i]], done = times_[to.value][d.to_event[i]];
    if (done < sent) {
      body_.diagnostics.Add(Diag::kDependenciesBackInTime,
                            fmt::format("{} dependency from {} at {} ns to {} at {} ns", kind,
                                        where(from, d.from_event[i]), SinceOrigin(sent), where(to, d.to_event[i]),
                                        SinceOrigin(done)));
    }
  }
  return OkStatus();
}

EventIndex TraceBuilder::EnterInstance(LocationId loc, TimeNs t, RegionId r, int64_t id) {
  const EventIndex e = Enter(loc, t, r);
  NoteInstance(loc, e, id);
  return e;
}

void TraceBuilder::NoteInstance(LocationId loc, EventIndex e, int64_t id) {
  body_.instances.location.push_back(loc);
  body_.instances.enter.push_back(e);
  body_.instances.id.push_back(id);
}

void TraceBuilder::AdoptEvents(LocationId loc, LocationEvents events) {
  times_[loc.value] = std::move(events.time);
  body_.kinds[loc.value] = std::move(events.kind);
  body_.args[loc.value] = std::move(events.arg);
}

std::optional<TraceBuilder::LocationEvents> TraceBuilder::TakeEvents(Trace& trace, LocationId loc) {
  if (trace.body_.use_count() != 1) return std::nullopt;
  std::optional<std::vector<TimeNs>> time = trace.timeline_.Take(loc);
  if (!time) return std::nullopt;
  TraceBody& body = const_cast<TraceBody&>(*trace.body_);
  trace.columns_[loc.value] = EventColumns();
  return LocationEvents{std::move(*time), std::move(body.kinds[loc.value]), std::move(body.args[loc.value])};
}

// Readers append instances in their own order (location by location, or interleaved): the table's
// order is (location, event), which Trace::InstanceId searches.
void TraceBuilder::SortInstances() {
  InstanceTable& in = body_.instances;
  std::vector<uint32_t> order(in.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  auto key = [&](uint32_t i) { return std::make_pair(in.location[i].value, in.enter[i]); };
  if (std::is_sorted(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); })) return;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  InstanceTable sorted;
  for (uint32_t i : order) {
    sorted.location.push_back(in.location[i]);
    sorted.enter.push_back(in.enter[i]);
    sorted.id.push_back(in.id[i]);
  }
  in = std::move(sorted);
}

std::string_view TraceBuilder::RegionName(uint32_t region) const {
  return region < body_.regions.size() ? str(body_.regions[region].name) : std::string_view("?");
}

// The edges and barrier instances of the threads' sync events (model/thread_sync.h). A barrier's
// enter and leave events become its collective begin and end.
void TraceBuilder::AddThreadSync() {
  if (body_.syncs.size() == 0 || !derive_thread_sync_) return;
  ThreadSync ts = FindThreadSync(body_.syncs, body_.kinds, body_.args, times_);
  ReportLateBarrierEnds(MoveLateBarrierEnds(ts, body_.syncs, body_.kinds, body_.args, times_));
  CloseNeverLeftBarriers(ts);
  DependencyTable& d = body_.dependencies;
  for (size_t r = 0; r < ts.edges.size(); ++r) {
    d.kind.push_back(ts.edges.kind[r]);
    d.from_location.push_back(ts.edges.from_location[r]);
    d.from_event.push_back(ts.edges.from_event[r]);
    d.to_location.push_back(ts.edges.to_location[r]);
    d.to_event.push_back(ts.edges.to_event[r]);
  }
  // One communicator per (object, members): instances of one barrier almost always have the same
  // threads, so the last one made for the object is tried first.
  std::map<std::pair<uint64_t, std::vector<LocationId>>, CommunicatorId> comms;
  std::unordered_map<uint64_t, std::pair<std::vector<LocationId>, CommunicatorId>> last;
  std::vector<LocationId> members;
  size_t member_rows = members_.size();
  for (const ThreadSync::Barrier& b : ts.barriers) member_rows += b.members.size();
  members_.reserve(member_rows);  // an OpenMP run has a million barrier members: no doubling
  for (const ThreadSync::Barrier& b : ts.barriers) {
    if (b.members.empty()) continue;
    members.clear();
    for (const ThreadSync::Member& m : b.members) members.push_back(m.location);
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    auto& [last_members, last_comm] = last[b.object];
    if (last_members != members) {
      auto [it, added] = comms.try_emplace(std::make_pair(b.object, members));
      if (added) it->second = AddCommunicator(ThreadBarrierName(b.object), members);
      last_members = members;
      last_comm = it->second;
    }
    const CollectiveId c = AddCollective(CollectiveOp::kBarrier, last_comm, LocationId());
    for (const ThreadSync::Member& m : b.members) {
      body_.kinds[m.location.value][m.enter] = EventKind::kCollBegin;
      body_.args[m.location.value][m.enter] = c.value;
      body_.kinds[m.location.value][m.leave] = EventKind::kCollEnd;
      body_.args[m.location.value][m.leave] = c.value;
      members_.push_back(CollectiveMember{c, m.location, m.enter, m.leave, 0, 0});
    }
  }
}

// An arrival never left on a thread whose events end there (only region ends follow it) in an
// instance other members left: the thread left at the instance's release (barrier_release.h).
// A leave event is added after the arrival, and the region ends after it move to the release.
// Other never-left arrivals stay out of their instance, counted as unfinished.
void TraceBuilder::CloseNeverLeftBarriers(ThreadSync& ts) {
  uint64_t closed = 0, unfinished = 0;
  std::string first_closed, first_unfinished;
  for (const ThreadSync::NeverLeft& n : ts.never_left) {
    ThreadSync::Barrier& b = ts.barriers[n.instance];
    std::vector<EventKind>& kind = body_.kinds[n.location.value];
    std::vector<TimeNs>& time = times_[n.location.value];
    const bool ends_inside = std::all_of(kind.begin() + n.enter + 1, kind.end(),
                                         [](EventKind k) { return k == EventKind::kLeave; });
    if (!ends_inside || b.members.empty()) {
      if (unfinished++ == 0)
        first_unfinished = fmt::format("barrier {:x}: an arrival at {} ns is never left", b.object,
                                       SinceOrigin(time[n.enter]));
      continue;
    }
    TimeNs last_arrival = time[n.enter], earliest_leave = std::numeric_limits<TimeNs>::max();
    for (const ThreadSync::Member& m : b.members) {
      last_arrival = std::max(last_arrival, times_[m.location.value][m.enter]);
      earliest_leave = std::min(earliest_leave, times_[m.location.value][m.leave]);
    }
    const TimeNs release = BarrierRelease(last_arrival, earliest_leave);
    const EventIndex leave = n.enter + 1;
    kind.insert(kind.begin() + leave, EventKind::kSync);
    body_.args[n.location.value].insert(body_.args[n.location.value].begin() + leave, body_.syncs.size());
    body_.syncs.kind.push_back(SyncKind::kBarrierLeave);
    body_.syncs.object.push_back(b.object);
    body_.syncs.arg.push_back(0);
    time.insert(time.begin() + leave, release);
    for (EventIndex e = leave + 1; e < time.size(); ++e) time[e] = std::max(time[e], release);
    b.members.push_back({n.location, n.enter, leave});
    if (closed++ == 0)
      first_closed = fmt::format("{}: barrier {:x} entered at {} ns, left at its release {} ns",
                                 str(body_.locations[n.location.value].name), b.object, SinceOrigin(time[n.enter]),
                                 SinceOrigin(release));
  }
  body_.diagnostics.AddCount(Diag::kBarrierEndsAdded, closed, first_closed);
  body_.diagnostics.AddCount(Diag::kUnfinishedCollectives, unfinished, first_unfinished);
}

void TraceBuilder::ReportLateBarrierEnds(const LateBarrierEnds& late) {
  if (late.moved == 0) return;
  body_.diagnostics.AddCount(
      Diag::kLateBarrierEndsMoved, late.moved,
      fmt::format("{}: a barrier end recorded at {} ns moved to {} ns; {:.3f} ms of idle time in all",
                  str(body_.locations[late.first_location.value].name), SinceOrigin(late.first_from),
                  SinceOrigin(late.first_to),
                  static_cast<double>(late.moved_ns) / 1e6));
}

Status TraceBuilder::BuildCollectiveTable() {
  CollectiveTable& c = body_.collectives;
  std::stable_sort(members_.begin(), members_.end(),
                   [](const CollectiveMember& a, const CollectiveMember& b) {
                     if (a.collective != b.collective) return a.collective < b.collective;
                     return a.location < b.location;
                   });
  c.first_member.assign(c.size() + 1, 0);
  for (const CollectiveMember& m : members_) {
    if (m.begin == kNoEvent || m.end == kNoEvent) {
      return DataLoss(fmt::format("{}: collective {} has a {} but no {}",
                                  str(body_.locations[m.location.value].name),
                                  m.collective.value, m.begin == kNoEvent ? "end" : "begin",
                                  m.begin == kNoEvent ? "begin" : "end"));
    }
    c.first_member[m.collective.value + 1]++;
    c.member_location.push_back(m.location);
    c.member_begin.push_back(m.begin);
    c.member_end.push_back(m.end);
    c.member_bytes_sent.push_back(m.bytes_sent);
    c.member_bytes_received.push_back(m.bytes_received);
  }
  for (size_t i = 1; i < c.first_member.size(); ++i) c.first_member[i] += c.first_member[i - 1];
  members_.clear();
  return OkStatus();
}

// Location ids (`external_id`) are the ids reports show and JSON keys rows by, so they must be
// unique in a trace. Readers give the ids the trace used (seed processor, MPI rank, OTF2 location
// reference); where two locations still share one (threads numbered per process), ranks and
// processors keep theirs and the later thread takes the next id above every id in the trace.
void TraceBuilder::MakeLocationIdsUnique() {
  std::vector<Location>& locs = body_.locations;
  std::unordered_set<int64_t> used;
  int64_t next = std::numeric_limits<int64_t>::min();
  for (const Location& l : locs) next = std::max(next, l.external_id);
  std::vector<uint32_t> clashing;
  // Pass 0: ranks, processes, processors; pass 1: threads and streams, whose ids mean least.
  auto second = [](LocationKind k) {
    return k == LocationKind::kThread || k == LocationKind::kOpenMpThread || k == LocationKind::kGpuStream;
  };
  for (int pass = 0; pass < 2; ++pass) {
    for (uint32_t i = 0; i < locs.size(); ++i) {
      if (second(locs[i].kind) != (pass == 1)) continue;
      if (!used.insert(locs[i].external_id).second) clashing.push_back(i);
    }
  }
  std::sort(clashing.begin(), clashing.end());
  for (uint32_t i : clashing) locs[i].external_id = ++next;
}

// Locations the trace defines but that have no event: named, so that a rank whose events are
// missing (corpus BT-MZ's rank 4, a 20-byte event file) is not silently an idle one.
void TraceBuilder::ReportEmptyLocations() {
  uint64_t empty = 0;
  std::string names;
  for (uint32_t l = 0; l < body_.locations.size(); ++l) {
    if (!times_[l].empty() || !event_locations_.Holds(l)) continue;
    if (++empty <= 5) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", LocationName(LocationId(l)));
  }
  if (empty > 5) names += fmt::format(" and {} more", empty - 5);
  body_.diagnostics.AddCount(Diag::kEmptyLocations, empty, names);
}

Result<Trace> TraceBuilder::Finish() {
  if (body_.locations.size() >= std::numeric_limits<uint32_t>::max())
    return DataLoss("too many locations");
  // After the last byte is read: nesting checked, messages, collectives and thread sync paired
  // (most of a second on 9 M events), under its own name rather than a bar stuck at 100 %.
  progress::Begin("assembling the trace", 0);
  GS_RETURN_IF_ERROR(CheckNesting());
  ReportEmptyLocations();
  AddThreadSync();
  GS_RETURN_IF_ERROR(BuildCollectiveTable());
  AddRendezvousEdges();
  GS_RETURN_IF_ERROR(CheckDependencies());
  MakeLocationIdsUnique();
  SortInstances();
  body_.flat_offsets.clear();
  uint64_t events = 0;
  for (const std::vector<TimeNs>& times : times_) {
    body_.flat_offsets.push_back(events);
    events += times.size();
  }
  GS_ASSIGN_OR_RETURN(Timeline timeline, Timeline::FromLocations(std::move(times_)));
  Trace out(std::move(format_), std::make_shared<TraceBody>(std::move(body_)), std::move(timeline));
  body_ = TraceBody();
  times_.clear();
  return out;
}

}  // namespace grainscope
