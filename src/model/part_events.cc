// MergeParts' events (part_merger.h): each part's locations moved in whole where they can be,
// else copied event by event, with the collective instances and edges they take part in.
#include <algorithm>
#include <limits>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "model/part_merger.h"
#include "model/thread_sync.h"

namespace grainscope::part_merge {

// Part p's region r in the merged trace, made on first use (a name lookup per event was half the
// time of reading a rank directory).
RegionId PartMerger::RegionOf(uint32_t p, uint32_t r) {
  std::vector<RegionId>& map = region_map_[p];
  const Trace& t = parts_[p].trace;
  if (map.empty()) map.resize(t.regions().size());
  if (map[r].valid()) return map[r];
  const Region& region = t.region(RegionId(r));
  const std::vector<std::string>& keys = parts_[p].region_keys;
  auto key = std::make_tuple(std::string(t.str(region.name)), region.role, r < keys.size() ? keys[r] : std::string());
  auto it = regions_.find(key);
  if (it == regions_.end()) {
    // The part's reader resolved the role (TraceBuilder::AddRegion): adding it again keeps it.
    const RegionId id = builder_.AddRegion(std::get<0>(key), region.role, static_cast<int64_t>(regions_.size()));
    it = regions_.emplace(std::move(key), id).first;
  }
  return map[r] = it->second;
}

// A collective row's begin or end on a part's location: the merged instance is the one with the
// same (communicator, sequence); a communicator no part defines leaves the event out.
void PartMerger::AppendCollectiveEvent(uint32_t p, LocationId loc, TimeNs time, EventKind kind, uint32_t row,
                                       uint32_t l, EventIndex part_event) {
  const TracePart& part = parts_[p];
  const CollectiveTable& ct = part.trace.collectives();
  const CollectiveId instance = whole_files() ? part_collective_[p][row] : InstanceOf(p, row, kind);
  if (!instance.valid()) return;
  EventIndex e;
  if (kind == EventKind::kCollBegin) {
    const uint32_t m = ct.member_row(CollectiveId(row), LocationId(l));
    e = builder_.CollBegin(loc, time, instance, ct.member_bytes_sent[m], ct.member_bytes_received[m]);
  } else {
    e = builder_.CollEnd(loc, time, instance);
  }
  merged_event_[p][l][part_event] = e;
}

// MPI ranks: the merged instance of part p's collective row, the one with the same (communicator,
// sequence) in every part; invalid for a communicator no part defines.
CollectiveId PartMerger::InstanceOf(uint32_t p, uint32_t row, EventKind kind) {
  const TracePart& part = parts_[p];
  const PartCollective& pc = part.collectives[row];
  auto c = comm_.find(pc.communicator);
  if (c == comm_.end()) {
    if (kind == EventKind::kCollBegin) {
      builder_.diagnostics().Add(Diag::kUnknownCommunicators,
                                 fmt::format("{}: collective on communicator {}, which has no definition", part.name, pc.communicator));
    }
    return CollectiveId();
  }
  auto [it, added] = collectives_.try_emplace(std::make_pair(c->second.value, pc.sequence));
  if (added) it->second = builder_.AddCollective(part.trace.collectives().op[row], c->second, RankLocation(pc.root_rank));
  return it->second;
}

void PartMerger::AppendEvents(uint32_t p) {
  const Trace& t = parts_[p].trace;
  merged_event_.resize(parts_.size());
  merged_event_[p].resize(t.locations().size());
  adopted_.resize(parts_.size());
  adopted_[p].assign(t.locations().size(), 0);
  region_map_[p].resize(t.regions().size());
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    if (!whole_files() && Adopt(p, l)) continue;
    CopyEvents(p, l);
  }
}

// Part p's location l appended event by event (its merged events in merged_event_).
void PartMerger::CopyEvents(uint32_t p, uint32_t l) {
  const TracePart& part = parts_[p];
  const Trace& t = part.trace;
  std::vector<RegionId>& map = region_map_[p];
  auto region_of = [&](uint32_t r) { return map[r].valid() ? map[r] : RegionOf(p, r); };  // per event: the cache first
  const bool has_instances = t.instances().size() > 0;  // grain ids per execution (.gst)
  const LocationId loc = merged_[p][l];
  const EventColumns& ev = t.events(LocationId(l));
  std::vector<EventIndex>& out = merged_event_[p][l];
  out.assign(ev.size(), kNoEvent);
  builder_.Reserve(loc, ev.size());
  TimeNs last = std::numeric_limits<TimeNs>::min();
  for (uint32_t i = 0; i < ev.size(); ++i) {
    TimeNs time = part.clock(ev.time[i]) - origin_;
    time = std::max(time, last);  // interpolation must not reorder a location's events
    last = time;
    const uint32_t a = ev.arg[i];
    switch (ev.kind[i]) {
      case EventKind::kEnter: {
        const std::optional<int64_t> id = has_instances ? t.InstanceId(LocationId(l), i) : std::nullopt;
        out[i] = id ? builder_.EnterInstance(loc, time, region_of(a), *id) : builder_.Enter(loc, time, region_of(a));
        break;
      }
      case EventKind::kLeave: out[i] = builder_.Leave(loc, time, region_of(a)); break;
      case EventKind::kSend: out[i] = builder_.Send(loc, time, send_id_[p][a]); break;
      case EventKind::kRecv: out[i] = builder_.Recv(loc, time, recv_id_[p][a]); break;
      case EventKind::kSendComplete: out[i] = builder_.SendComplete(loc, time, send_id_[p][a]); break;
      case EventKind::kRecvPost: out[i] = builder_.RecvPost(loc, time, recv_id_[p][a]); break;
      case EventKind::kMarker: out[i] = builder_.Marker(loc, time, builder_.Intern(t.str(StringId(a)))); break;
      case EventKind::kSync: {
        const SyncTable& st = t.syncs();
        out[i] = builder_.Sync(loc, time, st.kind[a], ProcessSyncObject(p, st.object[a]), st.arg[a]);
        break;
      }
      case EventKind::kCollBegin:
      case EventKind::kCollEnd: AppendCollectiveEvent(p, loc, time, ev.kind[i], a, l, i); break;
    }
  }
}

// MPI ranks: part p's location l moved in whole, its columns rewritten in place (times onto the
// merged clock, args into merged ids), when every event stays: the merged events are the part's,
// one for one, and no copy of them is made (a rank directory held its events twice while it was
// merged). False, with nothing done, when the part's trace cannot give its columns up or a
// collective event names a communicator no part defines (CopyEvents leaves it out).
bool PartMerger::Adopt(uint32_t p, uint32_t l) {
  TracePart& part = parts_[p];
  const Trace& t = part.trace;
  const EventColumns& ev = t.events(LocationId(l));
  for (uint32_t i = 0; i < ev.size(); ++i) {
    if ((ev.kind[i] == EventKind::kCollBegin || ev.kind[i] == EventKind::kCollEnd) &&
        !comm_.contains(part.collectives[ev.arg[i]].communicator))
      return false;
  }
  const bool has_instances = t.instances().size() > 0;  // InstanceId reads the instance table alone
  std::optional<TraceBuilder::LocationEvents> taken = TraceBuilder::TakeEvents(part.trace, LocationId(l));
  if (!taken) return false;
  std::vector<RegionId>& map = region_map_[p];
  const SyncTable& st = t.syncs();
  const CollectiveTable& ct = t.collectives();
  const LocationId loc = merged_[p][l];
  TimeNs last = std::numeric_limits<TimeNs>::min();
  for (uint32_t i = 0; i < taken->time.size(); ++i) {
    TimeNs& time = taken->time[i];
    time = std::max(part.clock(time) - origin_, last);  // interpolation must not reorder a location's events
    last = time;
    uint32_t& a = taken->arg[i];
    switch (taken->kind[i]) {
      case EventKind::kEnter:
        if (has_instances)
          if (const std::optional<int64_t> id = t.InstanceId(LocationId(l), i)) builder_.NoteInstance(loc, i, *id);
        [[fallthrough]];
      case EventKind::kLeave: a = (map[a].valid() ? map[a] : RegionOf(p, a)).value; break;
      case EventKind::kSend: builder_.NoteSend(loc, i, send_id_[p][a]); a = send_id_[p][a].value; break;
      case EventKind::kRecv: builder_.NoteRecv(loc, i, recv_id_[p][a]); a = recv_id_[p][a].value; break;
      case EventKind::kSendComplete: a = send_id_[p][a].value; break;
      case EventKind::kRecvPost: a = recv_id_[p][a].value; break;
      case EventKind::kMarker: a = builder_.Intern(t.str(StringId(a))).value; break;
      case EventKind::kSync: a = builder_.AddSyncRow(st.kind[a], ProcessSyncObject(p, st.object[a]), st.arg[a]); break;
      case EventKind::kCollBegin: {
        const CollectiveId instance = InstanceOf(p, a, EventKind::kCollBegin);
        const uint32_t m = ct.member_row(CollectiveId(a), LocationId(l));
        builder_.NoteCollBegin(loc, i, instance, ct.member_bytes_sent[m], ct.member_bytes_received[m]);
        a = instance.value;
        break;
      }
      case EventKind::kCollEnd: {
        const CollectiveId instance = InstanceOf(p, a, EventKind::kCollEnd);
        builder_.NoteCollEnd(loc, i, instance);
        a = instance.value;
        break;
      }
    }
  }
  builder_.AdoptEvents(loc, std::move(*taken));
  adopted_[p][l] = 1;
  return true;
}

// The parts' own edges (a lock hand-over the part's reader made; never the rendezvous edges,
// which the merged trace decides under one eager limit), between the merged events.
void PartMerger::AddDependencies(uint32_t p) {
  const DependencyTable& d = parts_[p].trace.dependencies();
  for (size_t i = 0; i < d.size(); ++i) {
    if (d.kind[i] == DependencyKind::kRendezvous) continue;
    const EventIndex from = MergedEvent(p, d.from_location[i].value, d.from_event[i]);
    const EventIndex to = MergedEvent(p, d.to_location[i].value, d.to_event[i]);
    if (from == kNoEvent || to == kNoEvent) continue;  // an end the merge left out
    builder_.AddDependency(d.kind[i], merged_[p][d.from_location[i].value], from, merged_[p][d.to_location[i].value], to);
  }
}

}  // namespace grainscope::part_merge
