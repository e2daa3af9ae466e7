#include "model/trace_builder.h"

#include <algorithm>
#include <limits>
#include <unordered_set>

#include <fmt/format.h>

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
  body_.regions.push_back(Region{Intern(name), role, external_id});
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
  body_.messages.send_event[m.value] = e;
  return e;
}

EventIndex TraceBuilder::Recv(LocationId loc, TimeNs t, MessageId m) {
  EventIndex e = Append(loc, t, EventKind::kRecv, m.value);
  body_.messages.recv_event[m.value] = e;
  return e;
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
  members_.push_back(CollectiveMember{c, loc, e, kNoEvent, bytes_sent, bytes_received});
  return e;
}

EventIndex TraceBuilder::CollEnd(LocationId loc, TimeNs t, CollectiveId c) {
  EventIndex e = Append(loc, t, EventKind::kCollEnd, c.value);
  // The open membership is almost always among the last few rows.
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    if (it->collective == c && it->location == loc && it->end == kNoEvent) {
      it->end = e;
      return e;
    }
  }
  members_.push_back(CollectiveMember{c, loc, kNoEvent, e, 0, 0});
  return e;
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
      body_.diagnostics.Add("dependencies_back_in_time",
                            fmt::format("{} dependency from {} at {} ns to {} at {} ns", kind,
                                        where(from, d.from_event[i]), sent, where(to, d.to_event[i]), done));
    }
  }
  return OkStatus();
}

Status TraceBuilder::CheckLocation(LocationId loc) const {
  const EventColumns e{times_[loc.value], body_.kinds[loc.value], body_.args[loc.value]};
  std::string_view name = str(body_.locations[loc.value].name);
  std::vector<uint32_t> open;  // regions entered and not yet left
  for (size_t i = 0; i < e.size(); ++i) {
    if (i > 0 && e.time[i] < e.time[i - 1]) {
      return DataLoss(fmt::format("{}: event {} at {} ns is earlier than the event before it ({} ns)",
                                  name, i, e.time[i], e.time[i - 1]));
    }
    const uint32_t arg = e.arg[i];
    switch (e.kind[i]) {
      case EventKind::kEnter:
        if (arg >= body_.regions.size())
          return DataLoss(fmt::format("{}: event {} enters unknown region {}", name, i, arg));
        open.push_back(arg);
        break;
      case EventKind::kLeave:
        if (open.empty() || open.back() != arg) {
          return DataLoss(fmt::format(
              "{}: event {} at {} ns leaves region '{}' which is not the innermost open region",
              name, i, e.time[i],
              arg < body_.regions.size() ? str(body_.regions[arg].name) : "?"));
        }
        open.pop_back();
        break;
      case EventKind::kSend:
      case EventKind::kSendComplete:
      case EventKind::kRecvPost:
      case EventKind::kRecv:
        if (arg >= body_.messages.size())
          return DataLoss(fmt::format("{}: event {} names unknown message {}", name, i, arg));
        break;
      case EventKind::kCollBegin:
      case EventKind::kCollEnd:
        if (arg >= body_.collectives.size())
          return DataLoss(fmt::format("{}: event {} names unknown collective {}", name, i, arg));
        break;
      case EventKind::kMarker:
        if (arg >= body_.strings.size())
          return DataLoss(fmt::format("{}: event {} names unknown string {}", name, i, arg));
        break;
    }
  }
  if (!open.empty()) {
    return DataLoss(fmt::format("{}: region '{}' is entered but never left", name,
                                str(body_.regions[open.back()].name)));
  }
  return OkStatus();
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
  for (int pass = 0; pass < 2; ++pass) {  // pass 0: ranks, processes, processors; pass 1: threads
    for (uint32_t i = 0; i < locs.size(); ++i) {
      if ((locs[i].kind == LocationKind::kThread) != (pass == 1)) continue;
      if (!used.insert(locs[i].external_id).second) clashing.push_back(i);
    }
  }
  std::sort(clashing.begin(), clashing.end());
  for (uint32_t i : clashing) locs[i].external_id = ++next;
}

Result<Trace> TraceBuilder::Finish() {
  if (body_.locations.size() >= std::numeric_limits<uint32_t>::max())
    return DataLoss("too many locations");
  for (uint32_t l = 0; l < body_.locations.size(); ++l) GS_RETURN_IF_ERROR(CheckLocation(LocationId(l)));
  GS_RETURN_IF_ERROR(BuildCollectiveTable());
  GS_RETURN_IF_ERROR(CheckDependencies());
  MakeLocationIdsUnique();
  body_.flat_offsets.clear();
  uint64_t events = 0;
  for (const std::vector<TimeNs>& times : times_) {
    body_.flat_offsets.push_back(events);
    events += times.size();
  }
  GS_ASSIGN_OR_RETURN(Timeline timeline, Timeline::FromLocations(std::move(times_)));
  Trace out(std::move(format_), std::make_shared<const TraceBody>(std::move(body_)), std::move(timeline));
  body_ = TraceBody();
  times_.clear();
  return out;
}

}  // namespace grainscope
