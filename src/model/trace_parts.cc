#include "model/trace_parts.h"

#include <algorithm>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "model/message_matcher.h"
#include "model/thread_sync.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

// One end (send or receive) of a part's message row.
struct MessageEnd {
  TimeNs time = 0;  // in its part's own clock: the order of completion there
  uint32_t part = 0;
  uint32_t location = 0;  // in the part
  EventIndex event = kNoEvent;
  uint32_t message = 0;  // the part's message row
  auto operator<=>(const MessageEnd&) const = default;
};

class PartMerger {
 public:
  PartMerger(std::vector<TracePart> parts, const MergeOptions& options)
      : parts_(std::move(parts)), options_(options), builder_(options.format),
        merge_reports_unmatched_(PartOnly(Diag::kSendsWithoutReceive) && PartOnly(Diag::kReceivesWithoutSend)) {}

  Result<Trace> Run() {
    builder_.diagnostics().Merge(options_.notes);
    region_map_.resize(parts_.size());
    SetOrigin();
    if (whole_files()) {
      builder_.SetEagerLimitIfRecorded();
      AddFileLocations();
      AddSharedCommunicators();
      for (uint32_t p = 0; p < parts_.size(); ++p) {
        for (uint32_t r = 0; r < parts_[p].trace.regions().size(); ++r) RegionOf(p, r);
        CopyCommunicators(p);
        CopyMessages(p);
        CopyCollectives(p);
      }
      PairMessages();  // the rows with a side in another file
    } else {
      SetEagerLimit();
      AddLocations();
      AddCommunicators();
      PairMessages();
    }
    kept_.resize(parts_.size());
    for (uint32_t p = 0; p < parts_.size(); ++p) {
      AppendEvents(p);
      builder_.diagnostics().Merge(parts_[p].collective_notes);
      AddDependencies(p);
      ReleasePart(p);
    }
    AddMetadataAndDiagnostics();
    return builder_.Finish();
  }

 private:
  bool whole_files() const { return options_.shape == PartShape::kWholeFiles; }
  bool PartOnly(Diag kind) const {
    const std::vector<Diag>& p = options_.part_only_diagnostics;
    return std::find(p.begin(), p.end(), kind) != p.end();
  }
  // Whole files: row `row` of a part's trace lacks a side that another file holds.
  bool PairedAcrossFiles(const Trace& t, uint32_t row) const {
    const MessageTable& m = t.messages();
    return (m.send_event[row] == kNoEvent || m.recv_event[row] == kNoEvent) && options_.pairs_across_files &&
           options_.pairs_across_files(t.str(m.name[row]));
  }

  LocationId RankLocation(int64_t rank) const {
    auto it = rank_location_.find(rank);
    return it == rank_location_.end() ? LocationId() : it->second;
  }

  // Time zero is the earliest aligned origin of a part that holds events; the merged times count
  // from the earliest aligned start of a part (its time 0) or first event.
  void SetOrigin() {
    origin_ = parts_.empty() ? 0 : std::numeric_limits<int64_t>::max();
    std::optional<int64_t> first;
    for (const TracePart& p : parts_) {
      origin_ = std::min(origin_, p.clock(0));
      for (uint32_t l = 0; l < p.trace.locations().size(); ++l) {
        const EventColumns& ev = p.trace.events(LocationId(l));
        if (ev.size() > 0) origin_ = std::min(origin_, p.clock(ev.time[0]));
      }
      if (p.trace.event_count() == 0) continue;
      const int64_t o = p.clock(p.trace.origin_ns());
      if (!first || o < *first) first = o;
    }
    builder_.SetOrigin(first ? *first - origin_ : 0);
  }

  void SetEagerLimit() {
    if (options_.eager_limit) {
      builder_.SetEagerLimit(options_.eager_limit->first, options_.eager_limit->second);
    } else {
      builder_.SetEagerLimitUnlessRecorded(options_.assumed_eager_limit, options_.assumed_eager_limit_source);
    }
  }

  void AddLocations() {
    merged_.resize(parts_.size());
    for (uint32_t p = 0; p < parts_.size(); ++p) {
      const TracePart& part = parts_[p];
      const Trace& t = part.trace;
      LocationId main;
      for (uint32_t l = 0; l < t.locations().size(); ++l) {
        LocationId id;
        if (l == 0) {
          id = main = builder_.AddLocation(fmt::format("rank {}", part.rank), LocationKind::kRank, part.rank);
          rank_location_[part.rank] = id;
        } else {
          id = builder_.AddLocation(fmt::format("rank {} {}", part.rank, t.str(t.locations()[l].name)),
                                    LocationKind::kThread, part.rank);
          builder_.SetLocationGroup(id, main.value);
        }
        merged_[p].push_back(id);
      }
    }
  }

  // The communicators the parts name, each once: the world first, then the others by key (the
  // same ids in every run of a program).
  void AddCommunicators() {
    std::vector<const PartCommunicator*> comms;
    for (const TracePart& part : parts_) {
      for (const PartCommunicator& c : part.communicators) {
        const bool seen = std::any_of(comms.begin(), comms.end(), [&](const auto* x) { return x->key == c.key; });
        if (!seen) comms.push_back(&c);
      }
    }
    const std::string& world = options_.world_communicator;
    std::stable_sort(comms.begin(), comms.end(), [&](const auto* a, const auto* b) {
      return (a->key != world) < (b->key != world) || ((a->key != world) == (b->key != world) && a->key < b->key);
    });
    for (const PartCommunicator* c : comms) {
      std::vector<LocationId> members;
      for (int64_t r : c->member_ranks) {
        const LocationId loc = RankLocation(r);
        if (!loc.valid()) {
          builder_.diagnostics().Add(Diag::kUnknownRanks, fmt::format("communicator {} names rank {}, which left no trace file", c->key, r));
          continue;
        }
        members.push_back(loc);
      }
      comm_[c->key] = builder_.AddCommunicator(c->name, std::move(members));
    }
  }

  void AddFileLocations();
  const std::string* SharedKey(uint32_t p, uint32_t row) const {
    const std::vector<PartCollective>& pc = parts_[p].collectives;
    return row < pc.size() && !pc[row].communicator.empty() ? &pc[row].communicator : nullptr;
  }
  void AddSharedCommunicators();
  void CopyCommunicators(uint32_t p);
  void CopyMessages(uint32_t p);
  void CopyCollectives(uint32_t p);
  void PairMessages();
  void AddMessage(std::string_view key, const std::optional<ChannelEnds>& ends, const MessageEnd* s, const MessageEnd* r);
  void AppendEvents(uint32_t p);
  CollectiveId InstanceOf(uint32_t p, uint32_t row, EventKind kind);
  void AppendCollectiveEvent(uint32_t p, LocationId loc, TimeNs time, EventKind kind, uint32_t row, uint32_t l,
                             EventIndex part_event);
  RegionId RegionOf(uint32_t p, uint32_t r);
  void AddDependencies(uint32_t p);
  void AddMetadataAndDiagnostics();

  // Once part p's events and dependencies are in the builder, the part's trace is freed (a rank
  // directory's parts held as much memory again as the merged trace), keeping only the little
  // AddMetadataAndDiagnostics takes from it.
  struct Kept {
    std::vector<std::pair<std::string, std::string>> metadata;
    std::vector<Diagnostic> diagnostics;
  };
  void ReleasePart(uint32_t p) {
    const Trace& t = parts_[p].trace;
    for (const MetadataEntry& m : t.metadata()) kept_[p].metadata.emplace_back(t.str(m.key), t.str(m.value));
    kept_[p].diagnostics = t.diagnostics().entries();
    parts_[p].trace = Trace();
    std::vector<std::vector<EventIndex>>().swap(merged_event_[p]);
  }

  std::vector<TracePart> parts_;
  const MergeOptions& options_;
  TraceBuilder builder_;
  int64_t origin_ = 0;
  std::vector<std::vector<LocationId>> merged_;  // per part: the merged location of each location
  // per part, per location: the merged event of each of its events
  std::vector<std::vector<std::vector<EventIndex>>> merged_event_;
  std::map<int64_t, LocationId> rank_location_;
  std::map<std::string, CommunicatorId, std::less<>> comm_;
  std::map<std::tuple<std::string, RegionRole, std::string>, RegionId> regions_;  // (name, role, region key)
  std::vector<std::vector<RegionId>> region_map_;  // per part, per region: merged, once used
  std::map<std::pair<uint32_t, uint32_t>, CollectiveId> collectives_;  // (merged communicator, sequence) -> instance
  // Whole files: per part, the merged id of each of its communicator and collective rows.
  std::vector<std::vector<CommunicatorId>> part_comm_;
  std::vector<std::vector<CollectiveId>> part_collective_;
  // Whole files whose collective rows name a key (PartCollective): one communicator per key, the
  // part communicators of such rows mapped onto it, and one instance per (key, sequence).
  std::map<std::string, CommunicatorId, std::less<>> shared_comm_;
  std::vector<std::map<uint32_t, CommunicatorId>> part_shared_comm_;
  std::map<std::pair<std::string, uint32_t>, CollectiveId> shared_collectives_;
  std::vector<std::vector<MessageId>> send_id_, recv_id_;  // per part, per message row
  UnmatchedEnds unmatched_;
  std::vector<Kept> kept_;  // per part, once released
  bool merge_reports_unmatched_ = false;  // the parts' unmatched-message reports are dropped
};

// Whole files: every location of every part, kind, external id and process kept.
void PartMerger::AddFileLocations() {
  merged_.resize(parts_.size());
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const Trace& t = parts_[p].trace;
    for (const Location& l : t.locations()) {
      merged_[p].push_back(
          builder_.AddLocation(fmt::format("rank {} {}", parts_[p].rank, t.str(l.name)), l.kind, l.external_id));
    }
    for (uint32_t l = 0; l < t.locations().size(); ++l)
      builder_.SetLocationGroup(merged_[p][l], merged_[p][t.locations()[l].group].value);
  }
}

LocationId MergedOrNone(const std::vector<LocationId>& merged, LocationId l) {
  return l.valid() ? merged[l.value] : LocationId();
}

// Whole files: the communicators of collective rows that a key makes one across parts (NCCL's
// process groups in a PyTorch rank directory), each with the members of every part.
void PartMerger::AddSharedCommunicators() {
  std::map<std::string, std::vector<LocationId>, std::less<>> members;
  std::map<std::string, std::string, std::less<>> names;
  part_shared_comm_.resize(parts_.size());
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const Trace& t = parts_[p].trace;
    const CollectiveTable& ct = t.collectives();
    for (uint32_t c = 0; c < ct.size(); ++c) {
      const std::string* key = SharedKey(p, c);
      if (key == nullptr) continue;
      std::vector<LocationId>& m = members[*key];
      for (uint32_t r = ct.first_member[c]; r < ct.first_member[c + 1]; ++r) m.push_back(merged_[p][ct.member_location[r].value]);
      if (ct.communicator[c].valid()) names.try_emplace(*key, t.str(t.communicators()[ct.communicator[c].value].name));
    }
  }
  for (auto& [key, m] : members) {
    std::sort(m.begin(), m.end());
    m.erase(std::unique(m.begin(), m.end()), m.end());
    auto name = names.find(key);
    shared_comm_[key] = builder_.AddCommunicator(name != names.end() ? name->second : key, std::move(m));
  }
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const CollectiveTable& ct = parts_[p].trace.collectives();
    for (uint32_t c = 0; c < ct.size(); ++c) {
      const std::string* key = SharedKey(p, c);
      if (key != nullptr && ct.communicator[c].valid()) part_shared_comm_[p][ct.communicator[c].value] = shared_comm_[*key];
    }
  }
}

void PartMerger::CopyCommunicators(uint32_t p) {
  part_comm_.resize(parts_.size());
  const Trace& t = parts_[p].trace;
  for (const Communicator& c : t.communicators()) {
    const uint32_t own = static_cast<uint32_t>(part_comm_[p].size());
    if (auto shared = part_shared_comm_[p].find(own); shared != part_shared_comm_[p].end()) {
      part_comm_[p].push_back(shared->second);
      continue;
    }
    std::vector<LocationId> members;
    for (LocationId m : c.members) members.push_back(MergedOrNone(merged_[p], m));
    part_comm_[p].push_back(builder_.AddCommunicator(t.str(c.name), std::move(members)));
  }
}

// Whole files: part p's message rows, each as it is (a side its file lacks stays missing), but
// those another file completes (PairMessages).
void PartMerger::CopyMessages(uint32_t p) {
  send_id_.resize(parts_.size());
  recv_id_.resize(parts_.size());
  const Trace& t = parts_[p].trace;
  const MessageTable& m = t.messages();
  send_id_[p].assign(m.size(), MessageId());
  recv_id_[p].assign(m.size(), MessageId());
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (PairedAcrossFiles(t, i)) continue;  // PairMessages'
    MessageInfo info;
    info.sender = MergedOrNone(merged_[p], m.sender[i]);
    info.receiver = MergedOrNone(merged_[p], m.receiver[i]);
    info.tag = m.tag[i];
    info.name = t.str(m.name[i]);
    info.bytes = m.bytes[i];
    if (m.communicator[i].valid()) info.communicator = part_comm_[p][m.communicator[i].value];
    if (m.send_grain[i].valid()) info.send_grain = RegionOf(p, m.send_grain[i].value);
    if (m.recv_grain[i].valid()) info.recv_grain = RegionOf(p, m.recv_grain[i].value);
    const MessageId id = builder_.AddMessage(info);
    send_id_[p][i] = id;
    recv_id_[p][i] = id;
    // A row with a side missing stays the file's own; where the options drop the file's report
    // of it (part_only_diagnostics), the merge says it.
    if (!merge_reports_unmatched_) continue;
    const std::string& file = parts_[p].name;
    if (m.send_event[i] == kNoEvent) unmatched_.NoSend([&] { return fmt::format("{}: a message is received but never sent", file); });
    if (m.recv_event[i] == kNoEvent) unmatched_.NoReceive([&] { return fmt::format("{}: a message is sent but never received", file); });
  }
}

void PartMerger::CopyCollectives(uint32_t p) {
  part_collective_.resize(parts_.size());
  const CollectiveTable& ct = parts_[p].trace.collectives();
  for (uint32_t c = 0; c < ct.op.size(); ++c) {
    const CommunicatorId comm = ct.communicator[c].valid() ? part_comm_[p][ct.communicator[c].value] : CommunicatorId();
    if (const std::string* key = SharedKey(p, c); key != nullptr) {
      auto [it, added] = shared_collectives_.try_emplace(std::make_pair(*key, parts_[p].collectives[c].sequence));
      if (added) it->second = builder_.AddCollective(ct.op[c], comm, LocationId());
      part_collective_[p].push_back(it->second);
      continue;
    }
    part_collective_[p].push_back(builder_.AddCollective(ct.op[c], comm, MergedOrNone(merged_[p], ct.root[c])));
  }
}

void PartMerger::PairMessages() {
  ChannelIds<std::string_view> keys;  // views into the parts' string pools
  FifoMessageMatcher<MessageEnd> matcher;
  send_id_.resize(parts_.size());
  recv_id_.resize(parts_.size());
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const Trace& t = parts_[p].trace;
    const MessageTable& m = t.messages();
    if (!whole_files()) {
      send_id_[p].assign(m.size(), MessageId());
      recv_id_[p].assign(m.size(), MessageId());
    }
    for (uint32_t i = 0; i < m.size(); ++i) {
      if (whole_files() && !PairedAcrossFiles(t, i)) continue;  // CopyMessages'
      const uint32_t channel = keys.Id(t.str(m.name[i]));
      if (m.send_event[i] != kNoEvent) {
        matcher.AddSend(channel, MessageEnd{t.events(m.sender[i]).time[m.send_event[i]], p, m.sender[i].value, m.send_event[i], i});
      }
      if (m.recv_event[i] != kNoEvent) {
        matcher.AddReceive(channel, MessageEnd{t.events(m.receiver[i]).time[m.recv_event[i]], p, m.receiver[i].value, m.recv_event[i], i});
      }
    }
  }
  matcher.Group();
  std::vector<uint32_t> by_key(keys.size());  // message ids follow the channels' names
  std::iota(by_key.begin(), by_key.end(), 0u);
  std::sort(by_key.begin(), by_key.end(), [&](uint32_t a, uint32_t b) { return keys.key(a) < keys.key(b); });
  matcher.OrderEachChannel(std::less<MessageEnd>());  // completion order in each part's clock
  for (uint32_t channel : by_key) {
    const std::string_view key = keys.key(channel);
    const std::optional<ChannelEnds> ends = options_.describe_channel ? options_.describe_channel(key) : std::nullopt;
    matcher.Match(channel, [&](uint32_t, const MessageEnd* s, const MessageEnd* r) { AddMessage(key, ends, s, r); });
  }
}

void PartMerger::AddMessage(std::string_view key, const std::optional<ChannelEnds>& ends, const MessageEnd* s,
                            const MessageEnd* r) {
  MessageInfo info;
  if (ends) {
    info.tag = ends->tag;
    if (auto c = comm_.find(ends->communicator); c != comm_.end()) info.communicator = c->second;
    info.sender = RankLocation(ends->sender_rank);
    info.receiver = RankLocation(ends->receiver_rank);
  } else {
    info.name = key;
  }
  if (s) info.sender = merged_[s->part][s->location];
  if (r) info.receiver = merged_[r->part][r->location];
  const MessageEnd& any = s ? *s : *r;
  info.bytes = parts_[any.part].trace.messages().bytes[any.message];
  if (!s) unmatched_.NoSend([&] { return fmt::format("message '{}' is received but never sent", key); });
  if (!r) unmatched_.NoReceive([&] { return fmt::format("message '{}' is sent but never received", key); });
  const MessageId id = builder_.AddMessage(info);
  if (s) send_id_[s->part][s->message] = id;
  if (r) recv_id_[r->part][r->message] = id;
}

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
  const TracePart& part = parts_[p];
  const Trace& t = part.trace;
  merged_event_.resize(parts_.size());
  merged_event_[p].resize(t.locations().size());
  std::vector<RegionId>& map = region_map_[p];
  map.resize(t.regions().size());
  auto region_of = [&](uint32_t r) { return map[r].valid() ? map[r] : RegionOf(p, r); };  // per event: the cache first
  const bool has_instances = t.instances().size() > 0;  // grain ids per execution (.gst)
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
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
}

// The parts' own edges (a lock hand-over the part's reader made; never the rendezvous edges,
// which the merged trace decides under one eager limit), between the merged events.
void PartMerger::AddDependencies(uint32_t p) {
  const DependencyTable& d = parts_[p].trace.dependencies();
  for (size_t i = 0; i < d.size(); ++i) {
    if (d.kind[i] == DependencyKind::kRendezvous) continue;
    const EventIndex from = merged_event_[p][d.from_location[i].value][d.from_event[i]];
    const EventIndex to = merged_event_[p][d.to_location[i].value][d.to_event[i]];
    if (from == kNoEvent || to == kNoEvent) continue;  // an end the merge left out
    builder_.AddDependency(d.kind[i], merged_[p][d.from_location[i].value], from, merged_[p][d.to_location[i].value], to);
  }
}

void PartMerger::AddMetadataAndDiagnostics() {
  if (whole_files()) {
    for (uint32_t p = 0; p < parts_.size(); ++p)
      for (const auto& [key, value] : kept_[p].metadata)
        builder_.AddMetadata(fmt::format("rank {} {}", parts_[p].rank, key), value);
  } else if (!parts_.empty()) {
    for (const auto& [key, value] : kept_.front().metadata) builder_.AddMetadata(key, value);
  }
  for (const auto& [key, value] : options_.metadata) builder_.AddMetadata(key, value);
  const auto& part_only = options_.part_only_diagnostics;
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const TracePart& part = parts_[p];
    builder_.diagnostics().Merge(part.notes);
    for (const auto& [key, value] : part.metadata) builder_.AddMetadata(key, value);
    for (const Diagnostic& d : kept_[p].diagnostics) {
      if (std::find(part_only.begin(), part_only.end(), d.kind) != part_only.end()) continue;
      // The merged trace names its own empty locations, by their merged names (TraceBuilder).
      if (d.kind == Diag::kEmptyLocations) continue;
      builder_.diagnostics().AddCount(d.kind, d.count, d.example);
    }
  }
  unmatched_.Report(builder_.diagnostics());
}

}  // namespace

Result<Trace> MergeParts(std::vector<TracePart> parts, const MergeOptions& options) {
  return PartMerger(std::move(parts), options).Run();
}

}  // namespace grainscope
