#include "format/otf2/otf2_reader.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <span>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <otf2/otf2.h>

#include "base/parallel.h"
#include "format/otf2/otf2_common.h"
#include "format/otf2/otf2_definitions.h"
#include "format/otf2/otf2_events.h"
#include "model/collective_matcher.h"
#include "model/message_matcher.h"
#include "model/metadata_keys.h"
#include "model/rendezvous.h"
#include "model/trace_builder.h"
#include "model/share_exchange.h"
#include "model/trace_share.h"
#include "model/thread_sync.h"

namespace grainscope {
namespace {

using otf2::CollectiveRecord;
using otf2::kNone;
using otf2::Otf2Definitions;
using otf2::Otf2Events;
using otf2::P2pRecord;

struct ReaderCloser {
  void operator()(OTF2_Reader* r) const { OTF2_Reader_Close(r); }
};

// A message channel: MPI matches in order within (communicator, sender, receiver, tag). The
// grainscope key splits channels further so that archives we wrote pair exactly as written.
struct Channel {
  uint32_t comm_ref, sender, receiver;
  int32_t tag;
  uint64_t key;
  bool operator==(const Channel&) const = default;
};
struct ChannelHash {
  size_t operator()(const Channel& c) const {
    uint64_t h = c.key * 0x9e3779b97f4a7c15ull;
    for (uint64_t v : {uint64_t{c.comm_ref}, uint64_t{c.sender}, uint64_t{c.receiver}, uint64_t(uint32_t(c.tag))})
      h = (h ^ v) * 0x100000001b3ull;
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

Channel ChannelOf(const P2pRecord& r) {
  const uint32_t sender = r.is_send ? r.location : r.peer;
  const uint32_t receiver = r.is_send ? r.peer : r.location;
  return Channel{r.comm_ref, sender, receiver, r.tag, r.key};
}

class Otf2TraceAssembler {
 public:
  // `share`: reading one share (model/trace_share.h), whose ends with a side in another share it
  // lists instead of reporting them unmatched; null: the whole trace.
  // `exchange` (with a share): completes the share with the other shares' ends as ghost events
  // (model/share_exchange.h); `share_of_location`: every location's share.
  Otf2TraceAssembler(TraceBuilder& builder, const Otf2Definitions& defs, Otf2Events& events,
                     std::string_view file, TraceShare* share = nullptr, ShareExchange* exchange = nullptr,
                     std::vector<uint32_t> share_of_location = {})
      : builder_(builder), defs_(defs), ev_(events), file_(file), share_(share), exchange_(exchange),
        share_of_location_(std::move(share_of_location)) {}

  Status Run() {
    MatchMessages();
    MatchCollectives();
    std::vector<GhostEvent> ghosts;
    if (exchange_ != nullptr) {
      GS_ASSIGN_OR_RETURN(ghosts, CompleteShare(*share_, facts_, ShareMapOf(), *exchange_));
      ReportUncompleted(ghosts);
    }
    GS_RETURN_IF_ERROR(AppendEvents());
    AppendGhosts(ghosts);
    return OkStatus();
  }

 private:
  // Pairs the k-th send of every channel with its k-th receive, in posting order: each record's
  // partner (index into p2p), or kNone.
  std::vector<uint32_t> Partners() {
    std::vector<P2pRecord>& p2p = ev_.p2p;
    ChannelIds<Channel, ChannelHash> channels;
    FifoMessageMatcher<uint32_t> matcher;  // indices into p2p
    for (uint32_t i = 0; i < p2p.size(); ++i) {
      if (p2p[i].event == kNone) continue;  // an Irecv posted but never completed
      const uint32_t channel = channels.Id(ChannelOf(p2p[i]));
      if (p2p[i].is_send) {
        matcher.AddSend(channel, i);
      } else {
        matcher.AddReceive(channel, i);
      }
    }
    matcher.Group();
    auto by_posting = [&](uint32_t a, uint32_t b) { return std::tie(p2p[a].order, a) < std::tie(p2p[b].order, b); };
    std::vector<uint32_t> partner(p2p.size(), kNone);
    matcher.OrderEachChannel(by_posting);
    if (share_ != nullptr) position_.assign(p2p.size(), 0);
    matcher.MatchAll([&](uint32_t channel, const uint32_t* send, const uint32_t* recv) {
      if (share_ != nullptr) {  // an end's k on its channel: what the other side's share computes too
        if (send != nullptr) position_[*send] = static_cast<uint32_t>(send - matcher.sends(channel).data());
        if (recv != nullptr) position_[*recv] = static_cast<uint32_t>(recv - matcher.receives(channel).data());
      }
      if (send == nullptr || recv == nullptr) return;
      partner[*send] = *recv;
      partner[*recv] = *send;
    });
    return partner;
  }

  // "send on 'A' at T ns (to 'B', tag 3, 8 bytes) has no matching receive": an unmatched end.
  std::string NoPartnerExample(const P2pRecord& rec) const {
    const std::string peer =
        rec.peer == kNone ? "an unknown location" : fmt::format("'{}'", builder_.LocationName(LocationId(rec.peer)));
    return fmt::format("{}: {} '{}' at {} ns ({} {}, tag {}, {} bytes) has no matching {}", file_,
                       rec.is_send ? "send on" : "receive on", builder_.LocationName(LocationId(rec.location)),
                       builder_.SinceOrigin(ev_.locations[rec.location].time[rec.event]), rec.is_send ? "to" : "from",
                       peer, rec.tag, rec.bytes, rec.is_send ? "receive" : "send");
  }

  void CountUnmatched(const P2pRecord& rec, UnmatchedEnds& unmatched) const {
    auto example = [&] { return NoPartnerExample(rec); };
    if (rec.is_send) {
      unmatched.NoReceive(example);
    } else {
      unmatched.NoSend(example);
    }
  }

  // An end without a partner in this share whose peer is in another share: listed, not unmatched.
  bool ListedAcrossShares(const P2pRecord& rec, uint32_t k, MessageId row) {
    if (share_ == nullptr || rec.peer == kNone || share_->locations.Holds(rec.peer)) return false;
    const Channel c = ChannelOf(rec);
    share_->messages.push_back({row, c.comm_ref, c.sender, c.receiver, c.tag, c.key, position_[k], rec.is_send});
    facts_.messages.push_back(EndEvents(rec, k));
    listed_.push_back(k);
    return true;
  }

  // The listed ends the other shares did not complete (no ghost of the other end came): counted
  // as unmatched, as the whole trace's reader counts them.
  void ReportUncompleted(const std::vector<GhostEvent>& ghosts) {
    std::vector<uint8_t> completed(builder_.message_count(), 0);
    for (const GhostEvent& g : ghosts)
      if (g.kind == EventKind::kSend || g.kind == EventKind::kRecv) completed[g.arg] = 1;
    UnmatchedEnds unmatched;
    for (size_t i = 0; i < share_->messages.size(); ++i) {
      if (completed[share_->messages[i].row.value]) continue;
      CountUnmatched(ev_.p2p[listed_[i]], unmatched);
    }
    unmatched.Report(builder_.diagnostics());
  }

  // A listed end's facts (ShareEndEvents) as positions in its location's raw events (each later
  // event of the location has a later position in the trace too).
  ShareEndEvents EndEvents(const P2pRecord& rec, uint32_t k) {
    const otf2::RawEvents& raw = ev_.locations[rec.location];
    ShareEndEvents out{rec.event, raw.time[rec.event]};
    if (request_event_.empty()) request_event_ = RequestEvents();
    const EventIndex enter = EnclosingEnter(raw.kind, rec.event), leave = EnclosingLeave(raw.kind, rec.event);
    const EventIndex side = request_event_[k] != kNone ? request_event_[k] : rec.is_send ? leave : enter;
    if (side != kNoEvent) {
      out.rendezvous_order = side;
      out.rendezvous_time = raw.time[side];
    }
    if (rec.is_send && enter != kNoEvent && leave != kNoEvent && builder_.SynchronousSend(RegionId(raw.arg[enter]))) {
      out.enter_order = enter;
      out.enter_time = raw.time[enter];
      out.leave_order = leave;
      out.leave_time = raw.time[leave];
      out.call = RegionId(raw.arg[enter]);
    }
    return out;
  }

  // Per p2p record, the raw position of its non-blocking request event (a send's completion, a
  // receive's posting), or kNone.
  std::vector<uint32_t> RequestEvents() const {
    std::vector<uint32_t> out(ev_.p2p.size(), kNone);
    for (uint32_t l = 0; l < ev_.locations.size(); ++l) {
      const otf2::RawEvents& raw = ev_.locations[l];
      for (uint32_t i = 0; i < raw.size(); ++i)
        if (raw.kind[i] == EventKind::kSendComplete || raw.kind[i] == EventKind::kRecvPost) out[raw.arg[i]] = i;
    }
    return out;
  }

  ShareMap ShareMapOf() const {
    ShareMap map{share_of_location_, {}};
    for (const otf2::CommInfo& c : defs_.comm_of_ref) {
      map.communicator_members.emplace_back();
      for (LocationId m : c.members)
        if (m.valid()) map.communicator_members.back().push_back(m.value);
    }
    return map;
  }

  // The other shares' ends of this share's messages and collectives, on their locations.
  void AppendGhosts(const std::vector<GhostEvent>& ghosts) {
    for (const GhostEvent& g : ghosts) {
      const LocationId loc(g.location);
      switch (g.kind) {
        case EventKind::kSend: builder_.Send(loc, g.time, MessageId(g.arg)); break;
        case EventKind::kRecv: builder_.Recv(loc, g.time, MessageId(g.arg)); break;
        case EventKind::kSendComplete: builder_.SendComplete(loc, g.time, MessageId(g.arg)); break;
        case EventKind::kRecvPost: builder_.RecvPost(loc, g.time, MessageId(g.arg)); break;
        case EventKind::kEnter: builder_.Enter(loc, g.time, RegionId(g.arg)); break;
        case EventKind::kLeave: builder_.Leave(loc, g.time, RegionId(g.arg)); break;
        case EventKind::kCollBegin:
          builder_.CollBegin(loc, g.time, CollectiveId(g.arg), g.bytes_sent, g.bytes_received);
          break;
        default: builder_.CollEnd(loc, g.time, CollectiveId(g.arg)); break;
      }
    }
  }

  // A message per matched pair, and per send or receive without a partner (counted).
  void MatchMessages() {
    std::vector<P2pRecord>& p2p = ev_.p2p;
    const std::vector<uint32_t> partner = Partners();
    UnmatchedEnds unmatched;
    for (uint32_t k = 0; k < p2p.size(); ++k) {
      P2pRecord& rec = p2p[k];
      if (rec.event == kNone || rec.message != kNone) continue;
      P2pRecord* other = partner[k] == kNone ? nullptr : &p2p[partner[k]];
      const P2pRecord* send = rec.is_send ? &rec : other;
      const P2pRecord* recv = rec.is_send ? other : &rec;
      const P2pRecord& any = send != nullptr ? *send : *recv;
      MessageInfo info;
      info.sender = LocationId(send != nullptr ? send->location : recv->peer);
      info.receiver = LocationId(recv != nullptr ? recv->location : send->peer);
      info.tag = any.tag;
      info.bytes = any.bytes;
      info.communicator = CommunicatorOf(any.comm_ref, any.location, any.communicator);
      uint32_t name = send != nullptr ? send->name_ref : OTF2_UNDEFINED_STRING;
      if (name == OTF2_UNDEFINED_STRING && recv != nullptr) name = recv->name_ref;
      info.name = defs_.String(name);
      if (send != nullptr) info.send_grain = send->grain;
      if (recv != nullptr) info.recv_grain = recv->grain;
      const MessageId id = builder_.AddMessage(info);
      rec.message = id.value;
      if (other != nullptr) {
        other->message = id.value;
        continue;
      }
      if (!ListedAcrossShares(rec, k, id)) CountUnmatched(rec, unmatched);
    }
    unmatched.Report(builder_.diagnostics());
  }

  // The k-th collective a location takes part in on a communicator is instance k of it.
  // Instances are numbered by their earliest begin (then communicator, then sequence).
  void MatchCollectives() {
    std::vector<CollectiveRecord>& colls = ev_.collectives;
    std::vector<uint32_t> done;
    uint64_t unfinished = 0;
    for (uint32_t i = 0; i < colls.size(); ++i) {
      if (colls[i].thread_barrier) continue;  // sync events now (EndThreadBarrier)
      if (colls[i].end_event == kNone) {
        ++unfinished;
      } else {
        done.push_back(i);
      }
    }
    builder_.diagnostics().AddCount(
        Diag::kUnfinishedCollectives, unfinished,
        fmt::format("{}: a collective begins but the location's events end before it does", file_));
    // Each location's collectives in its order: the k-th on a communicator is instance k.
    std::sort(done.begin(), done.end(), [&](uint32_t a, uint32_t b) {
      return std::tie(colls[a].location, colls[a].begin_event) < std::tie(colls[b].location, colls[b].begin_event);
    });
    CollectiveMatcher matcher;
    std::vector<uint32_t> seq(colls.size(), 0);
    for (uint32_t i : done) seq[i] = matcher.Next(colls[i].comm_ref, colls[i].location);
    // A COMM_SELF-like definition stands for one communicator per location: its collectives
    // never meet another location's, although they share the definition.
    auto owner = [&](uint32_t i) { return IsSelf(colls[i].comm_ref) ? colls[i].location : kNone; };
    std::sort(done.begin(), done.end(), [&](uint32_t a, uint32_t b) {
      return std::make_tuple(colls[a].comm_ref, owner(a), seq[a], colls[a].location) <
             std::make_tuple(colls[b].comm_ref, owner(b), seq[b], colls[b].location);
    });
    struct Instance {
      TimeNs first_begin;
      uint32_t comm_ref, owner, seq;
      size_t first, last;  // range in `done`
    };
    std::vector<Instance> instances;
    for (size_t k = 0; k < done.size(); ++k) {
      const CollectiveRecord& c = colls[done[k]];
      const TimeNs begin = ev_.locations[c.location].time[c.begin_event];
      const Instance key{begin, c.comm_ref, owner(done[k]), seq[done[k]], k, k + 1};
      if (instances.empty() || std::tie(instances.back().comm_ref, instances.back().owner, instances.back().seq) !=
                                   std::tie(key.comm_ref, key.owner, key.seq)) {
        instances.push_back(key);
      } else {
        instances.back().first_begin = std::min(instances.back().first_begin, begin);
        instances.back().last = k + 1;
      }
    }
    std::sort(instances.begin(), instances.end(), [](const Instance& a, const Instance& b) {
      return std::tie(a.first_begin, a.comm_ref, a.owner, a.seq) < std::tie(b.first_begin, b.comm_ref, b.owner, b.seq);
    });
    for (const Instance& inst : instances) {
      const CollectiveRecord& first = colls[done[inst.first]];
      const CollectiveId id =
          builder_.AddCollective(first.op, CommunicatorOf(first.comm_ref, first.location, first.communicator), first.root);
      for (size_t k = inst.first; k < inst.last; ++k) colls[done[k]].instance = id.value;
      if (share_ != nullptr && SpansShares(first.comm_ref, inst.owner))
        ListAcrossShares(id, first.comm_ref, inst.owner, inst.seq, std::span(done).subspan(inst.first, inst.last - inst.first));
    }
  }

  // A collective instance with members in other shares, and its own members' facts.
  void ListAcrossShares(CollectiveId id, uint32_t comm_ref, uint32_t owner, uint32_t seq,
                        std::span<const uint32_t> records) {
    share_->collectives.push_back({id, comm_ref, owner, seq});
    std::vector<ShareMember>& members = facts_.members.emplace_back();
    for (uint32_t r : records) {
      const CollectiveRecord& c = ev_.collectives[r];
      const std::vector<TimeNs>& time = ev_.locations[c.location].time;
      members.push_back({c.location, time[c.begin_event], time[c.end_event], c.begin_event, c.end_event, c.bytes_sent,
                         c.bytes_received});
    }
  }

  // Whether communicator `comm_ref` has members in other shares (a per-location one never has).
  bool SpansShares(uint32_t comm_ref, uint32_t owner) const {
    if (owner != kNone || comm_ref >= defs_.comm_of_ref.size()) return false;
    for (LocationId m : defs_.comm_of_ref[comm_ref].members)
      if (m.valid() && !share_->locations.Holds(m.value)) return true;
    return false;
  }

  // Thread barrier regions (Score-P's "!$omp implicit barrier"), by model region: their OTF2
  // reference + 1, 0 for other regions. Entering one is arriving at the barrier, leaving it
  // leaving the barrier (model/thread_sync.h): a sync event after the Enter, one before the Leave.
  std::vector<uint32_t> BarrierRefs() const {
    std::vector<uint32_t> barrier_ref(builder_.region_count(), 0);
    for (uint32_t ref = 0; ref < defs_.region_of_ref.size(); ++ref) {
      if (defs_.thread_barrier_region[ref] && defs_.region_of_ref[ref].valid()) barrier_ref[defs_.region_of_ref[ref].value] = ref + 1;
    }
    return barrier_ref;
  }

  Status AppendEvents() {
    uint64_t incomplete_receives = 0;
    const std::vector<uint32_t> barrier_ref = BarrierRefs();
    for (uint32_t l = 0; l < ev_.locations.size(); ++l) {
      otf2::RawEvents& raw = ev_.locations[l];
      const LocationId loc(l);
      builder_.Reserve(loc, raw.size() + ev_.thread_barrier_events[l]);
      const uint32_t process = defs_.process_of[l];
      for (uint32_t i = 0; i < raw.size(); ++i) {
        const TimeNs t = raw.time[i];
        const uint32_t arg = raw.arg[i];
        switch (raw.kind[i]) {
          case EventKind::kEnter:
            builder_.Enter(loc, t, RegionId(arg));
            if (barrier_ref[arg] != 0)
              builder_.Sync(loc, t, SyncKind::kBarrierEnter, ProcessSyncObject(process, barrier_ref[arg] - 1));
            break;
          case EventKind::kLeave:
            if (arg < barrier_ref.size() && barrier_ref[arg] != 0)
              builder_.Sync(loc, t, SyncKind::kBarrierLeave, ProcessSyncObject(process, barrier_ref[arg] - 1));
            builder_.Leave(loc, t, RegionId(arg));
            break;
          case EventKind::kMarker: builder_.MarkerOrSync(loc, t, StringId(arg)); break;
          case EventKind::kSync: {
            const otf2::SyncRecord& sr = ev_.syncs[arg];
            builder_.Sync(loc, t, sr.kind, sr.object, sr.arg);
            break;
          }
          case EventKind::kSend: builder_.Send(loc, t, MessageId(ev_.p2p[arg].message)); break;
          case EventKind::kRecv: builder_.Recv(loc, t, MessageId(ev_.p2p[arg].message)); break;
          case EventKind::kSendComplete:
            builder_.SendComplete(loc, t, MessageId(ev_.p2p[arg].message));
            break;
          case EventKind::kRecvPost:
            if (ev_.p2p[arg].message == kNone) {
              ++incomplete_receives;
            } else {
              builder_.RecvPost(loc, t, MessageId(ev_.p2p[arg].message));
            }
            break;
          case EventKind::kCollBegin: {
            const CollectiveRecord& c = ev_.collectives[arg];
            if (c.instance != kNone) {
              builder_.CollBegin(loc, t, CollectiveId(c.instance), c.bytes_sent, c.bytes_received);
            }
            break;
          }
          case EventKind::kCollEnd:
            builder_.CollEnd(loc, t, CollectiveId(ev_.collectives[arg].instance));
            break;
        }
      }
      raw = otf2::RawEvents();  // release as we go: the builder now holds the events
    }
    builder_.diagnostics().AddCount(
        Diag::kIncompleteReceives, incomplete_receives,
        fmt::format("{}: a non-blocking receive was posted (MpiIrecvRequest) but never completed", file_));
    return OkStatus();
  }

  bool IsSelf(uint32_t comm_ref) const {
    return comm_ref < defs_.comm_of_ref.size() && defs_.comm_of_ref[comm_ref].self;
  }

  // The communicator a record on `comm_ref` at `location` belongs to: the definition's, or for a
  // COMM_SELF-like definition the location's own one-member communicator, made on first use.
  CommunicatorId CommunicatorOf(uint32_t comm_ref, uint32_t location, CommunicatorId defined) {
    if (!IsSelf(comm_ref)) return defined;
    auto [it, added] = self_communicators_.try_emplace((uint64_t{comm_ref} << 32) | location);
    if (added) it->second = builder_.AddCommunicator(defs_.comm_of_ref[comm_ref].name, {LocationId(location)});
    return it->second;
  }

  TraceBuilder& builder_;
  const Otf2Definitions& defs_;
  Otf2Events& ev_;
  std::string_view file_;
  TraceShare* share_;
  ShareExchange* exchange_;
  std::vector<uint32_t> share_of_location_;
  std::vector<uint32_t> listed_;  // per listed end (share_->messages): its p2p record
  ShareFacts facts_;                // with a share: its listed ends' times and members
  std::vector<uint32_t> position_;  // with a share: per p2p record, its k on its channel
  std::vector<uint32_t> request_event_;  // with a share: RequestEvents, made on first use
  std::unordered_map<uint64_t, CommunicatorId> self_communicators_;  // (comm_ref, location) ->
};

TimeNs OriginOf(const Otf2Definitions& defs, const Otf2Events& events) {
  if (defs.has_clock_properties) return defs.global_offset_ns;
  if (events.has_program_begin) return events.earliest_program_begin;
  bool any = false;
  TimeNs first = 0;
  for (const otf2::RawEvents& e : events.locations) {
    if (e.size() == 0) continue;
    first = any ? std::min(first, e.time.front()) : e.time.front();
    any = true;
  }
  return first;
}

// grainscope's own archives carry the Trace's metadata; others get their creator recorded.
// Returns whether grainscope wrote the archive (its metadata property).
bool AddMetadata(OTF2_Reader* reader, TraceBuilder& builder) {
  char* value = nullptr;
  if (OTF2_Reader_GetProperty(reader, otf2::kMetadataProperty, &value) == OTF2_SUCCESS && value) {
    nlohmann::json meta = nlohmann::json::parse(value, nullptr, /*allow_exceptions=*/false);
    std::free(value);
    if (meta.is_object()) {
      for (auto& [key, v] : meta.items())
        if (v.is_string()) builder.AddMetadata(key, v.get<std::string>());
      return true;
    }
  }
  char* creator = nullptr;
  if (OTF2_Reader_GetCreator(reader, &creator) == OTF2_SUCCESS && creator != nullptr) {
    if (*creator != '\0') builder.AddMetadata(metadata::kCreator, creator);
    std::free(creator);
  }
  return false;
}

}  // namespace

Result<std::string> FindOtf2Anchor(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return NotFound(fmt::format("{}: no such file or directory", path));
  if (!fs::is_directory(st)) return path;
  std::vector<std::string> anchors;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
    if (e.path().extension() == ".otf2" && e.is_regular_file()) anchors.push_back(e.path().string());
  if (anchors.size() != 1) {
    return NotFound(fmt::format("{}: a directory holding {} OTF2 anchor files (*.otf2); name the one to read",
                                path, anchors.size()));
  }
  return anchors.front();
}

namespace {

// The anchor file of the archive `path` names, if it has OTF2's signature.
Result<std::string> SignedAnchor(const std::string& path) {
  GS_ASSIGN_OR_RETURN(std::string anchor, FindOtf2Anchor(path));
  if (!otf2::HasOtf2Signature(anchor)) {
    return DataLoss(fmt::format("{}: not an OTF2 anchor file (no OTF2 signature in its first bytes)", anchor));
  }
  return anchor;
}

// Reads the archive whole (`share_count` 0) or share `share_index` of `share_count` into `share`,
// completed through `exchange` when there is one.
Result<Trace> ReadOtf2Archive(const std::string& anchor_path, const ReadOptions& options, uint32_t share_index,
                              uint32_t share_count, TraceShare* share, ShareExchange* exchange) {
  GS_ASSIGN_OR_RETURN(std::string anchor, SignedAnchor(anchor_path));
  otf2::SilenceOtf2Errors();
  std::unique_ptr<OTF2_Reader, ReaderCloser> reader(OTF2_Reader_Open(anchor.c_str()));
  if (reader == nullptr) return DataLoss(fmt::format("{}: not an OTF2 anchor file", anchor));
  OTF2_ErrorCode rc = OTF2_Reader_SetSerialCollectiveCallbacks(reader.get());
  if (rc != OTF2_SUCCESS) return otf2::Otf2Error(rc, anchor);
  uint64_t locations = 0;
  rc = OTF2_Reader_GetNumberOfLocations(reader.get(), &locations);
  if (rc != OTF2_SUCCESS) return otf2::Otf2Error(rc, fmt::format("{}: not a readable OTF2 archive", anchor));

  TraceBuilder builder{std::string(kOtf2Format)};
  builder.SetRepairNesting(!options.strict);
  GS_ASSIGN_OR_RETURN(Otf2Definitions defs, otf2::ReadOtf2Definitions(reader.get(), builder, anchor));
  std::vector<uint32_t> share_of_location;
  if (share != nullptr) {
    std::vector<LocationSet> sets = ShareLocations(defs.process_of, defs.location_event_counts, share_count);
    share_of_location.resize(defs.process_of.size());
    for (uint32_t k = 0; k < share_count; ++k)
      for (uint32_t l = 0; l < share_of_location.size(); ++l)
        if (sets[k].Holds(l)) share_of_location[l] = k;
    share->locations = std::move(sets[share_index]);
    share->share_of_location = share_of_location;
    builder.SetEventLocations(share->locations);
  }
  Otf2Events events;
  GS_RETURN_IF_ERROR(otf2::ReadOtf2Events(reader.get(), defs, builder, anchor, options.strict, Threads(options.threads),
                                          share != nullptr ? share->locations : LocationSet(), &events));
  builder.SetOrigin(OriginOf(defs, events));
  // Score-P does not record the MPI library's eager limit; an archive grainscope wrote has it in
  // its metadata when it is an MPI trace.
  if (AddMetadata(reader.get(), builder)) {
    builder.SetEagerLimitIfRecorded();
  } else {
    builder.SetEagerLimitUnlessRecorded(kAssumedEagerLimitBytes, "assumed: the trace does not say");
  }
  GS_RETURN_IF_ERROR(Otf2TraceAssembler(builder, defs, events, anchor, share, exchange, std::move(share_of_location)).Run());
  reader.reset();
  events = Otf2Events();  // the builder holds everything now: its records must not double Finish's peak
  Result<Trace> trace = builder.Finish();
  if (!trace.ok()) return DataLoss(fmt::format("{}: {}", anchor, trace.status().message()));
  return trace;
}

}  // namespace

Result<Trace> ReadOtf2(const std::string& anchor_path, const ReadOptions& options) {
  return ReadOtf2Archive(anchor_path, options, 0, 0, nullptr, nullptr);
}

Result<TraceShare> ReadOtf2Share(const std::string& anchor_path, const ReadOptions& options, uint32_t share_index,
                                 uint32_t share_count) {
  if (share_count == 0 || share_index >= share_count)
    return InvalidArgument(fmt::format("share {} of {}: no such share", share_index, share_count));
  TraceShare share;
  GS_ASSIGN_OR_RETURN(share.trace, ReadOtf2Archive(anchor_path, options, share_index, share_count, &share, nullptr));
  return share;
}

Result<TraceShare> ReadOtf2Share(const std::string& anchor_path, const ReadOptions& options, ShareExchange& exchange) {
  // Checked by every share before any reads: a wrong path is one error all agree on.
  GS_RETURN_IF_ERROR(AgreeOnStatus(SignedAnchor(anchor_path).status(), exchange));
  TraceShare share;
  GS_ASSIGN_OR_RETURN(share.trace, ReadOtf2Archive(anchor_path, options, exchange.index(), exchange.count(), &share,
                                                   &exchange));
  return share;
}

namespace {
// An OTF2 archive is named by its anchor file (*.otf2) or by a directory holding one.
Sniff SniffOtf2(const TraceProbe& probe) {
  namespace fs = std::filesystem;
  const fs::path p(probe.path);
  if (p.extension() == ".otf2") return Sniff::kSure;
  std::error_code ec;
  return fs::is_directory(p, ec) && FindOtf2Anchor(probe.path).ok() ? Sniff::kSure : Sniff::kNo;
}
}  // namespace

constinit const Importer kOtf2Importer{kOtf2Format, SniffOtf2, ReadOtf2, nullptr, "OTF2", "OTF2"};

}  // namespace grainscope
