// The Chrome reader's second half: the tracks read from the documents become the trace's
// locations (sorted, named), async slices are laid on lanes, flows become messages and dependency
// edges, and each track's items its Enter/Leave order (chrome_parser.h).
#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format/chrome/chrome_common.h"
#include "format/chrome/chrome_parser.h"
#include "model/message_matcher.h"
#include "model/trace_builder.h"

namespace grainscope::chrome {

// Async slices overlap freely; as Perfetto does, each process's are packed into lanes (tracks
// "<process> async <k>") where they nest or follow one another.
void ChromeParser::LayAsyncSlices() {
  for (auto& [key, open] : open_async_) {
    for (const auto& [region, begin] : open) {
      async_.push_back(AsyncSlice{std::get<0>(key), begin, std::max(begin, async_end_), region});
      ++unclosed_;
    }
  }
  std::stable_sort(async_.begin(), async_.end(), [](const AsyncSlice& a, const AsyncSlice& b) {
    return a.pid != b.pid ? a.pid < b.pid : a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  std::map<TrackPart, std::vector<std::vector<std::pair<TimeNs, TimeNs>>>> lanes;  // per lane: open intervals
  for (const AsyncSlice& s : async_) {
    auto& process_lanes = lanes[s.pid];
    size_t lane = 0;
    for (; lane < process_lanes.size(); ++lane) {
      auto& open = process_lanes[lane];
      while (!open.empty() && open.back().second <= s.begin) open.pop_back();
      if (open.empty() || s.end <= open.back().second) break;  // free, or nested in its innermost
    }
    if (lane == process_lanes.size()) process_lanes.emplace_back();
    process_lanes[lane].emplace_back(s.begin, s.end);
    TrackPart tid;
    tid.name = fmt::format("async {}", lane);
    tid.named = true;
    Item item{s.begin, ItemKind::kSlice};
    item.end = s.end;
    item.arg = s.region;
    tracks_[TrackFor(s.pid, tid)].items.push_back(item);
  }
}

// Processes and threads with a sort index first, in its order; the others after, in order of
// first appearance (the order Chrome and Perfetto show them in).
void ChromeParser::SortTracks() {
  std::map<TrackPart, uint32_t> first_track;  // a process's place: where its first track appeared
  for (uint32_t i = 0; i < tracks_.size(); ++i) first_track.emplace(tracks_[i].pid, i);
  auto key = [&](uint32_t i) {
    const Track& t = tracks_[i];
    auto p = processes_.find(t.pid);
    const std::optional<int64_t> ps = p == processes_.end() ? std::nullopt : p->second.sort_index;
    return std::make_tuple(!ps.has_value(), ps.value_or(0), first_track[t.pid], !t.sort_index.has_value(),
                           t.sort_index.value_or(0), i);
  };
  // A track that only metadata named (Kineto names a "Device 0" track for its synchronisation
  // records, which are edges here) is no location; grainscope's writer's empty locations stay.
  std::vector<uint32_t> order;
  for (uint32_t i = 0; i < tracks_.size(); ++i)
    if (!tracks_[i].items.empty() || tracks_[i].kind_given) order.push_back(i);
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
  if (order.size() == tracks_.size() && std::is_sorted(order.begin(), order.end())) return;
  std::vector<Track> sorted;
  sorted.reserve(order.size());
  constexpr uint32_t kDropped = UINT32_MAX;
  std::vector<uint32_t> new_index(tracks_.size(), kDropped);
  for (uint32_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    sorted.push_back(std::move(tracks_[order[i]]));
  }
  tracks_ = std::move(sorted);
  std::erase_if(track_index_, [&](const auto& entry) { return new_index[entry.second] == kDropped; });
  for (auto& [k, index] : track_index_) index = new_index[index];
  last_track_.track = UINT32_MAX;  // the ids changed
  for (Flow& f : flows_) f.track = new_index[f.track];
  for (NcclKernel& k : nccl_) k.track = new_index[k.track];  // a kernel's track holds it: never dropped
}

// Locations in track order. A process's location is its track with tid == pid (Chrome's main
// thread), else its first track. A track without a thread_name is named after its process
// (the process's own track) or "pid P tid T"; a name two processes' tracks share (Kineto's
// "stream 7" on every GPU) is prefixed with the process's label or name.
void ChromeParser::AddLocations() {
  std::map<TrackPart, uint32_t> leader;
  for (uint32_t i = 0; i < tracks_.size(); ++i) {
    const Track& t = tracks_[i];
    if (t.tid == t.pid || leader.count(t.pid) == 0) leader[t.pid] = i;
  }
  std::vector<std::string> names(tracks_.size());
  std::map<std::string, std::vector<uint32_t>> by_name;
  for (uint32_t i = 0; i < tracks_.size(); ++i) {
    const Track& t = tracks_[i];
    names[i] = t.name;
    if (names[i].empty()) {
      auto p = processes_.find(t.pid);
      names[i] = p != processes_.end() && !p->second.name.empty() && leader[t.pid] == i
                     ? p->second.name
                     : fmt::format("{} {}", t.pid.Label("pid"), t.tid.Label("tid"));
    }
    by_name[names[i]].push_back(i);
  }
  for (auto& [name, users] : by_name) {
    if (users.size() < 2) continue;
    for (uint32_t i : users) {
      const Track& t = tracks_[i];
      auto p = processes_.find(t.pid);
      const std::string process = p == processes_.end()              ? t.pid.Label("pid")
                                  : !p->second.labels.empty()        ? p->second.labels
                                  : !p->second.name.empty()          ? p->second.name
                                                                     : t.pid.Label("pid");
      if (!tracks_[i].name.empty() && !names[i].starts_with(process)) names[i] = fmt::format("{} {}", process, names[i]);
    }
  }
  for (uint32_t i = 0; i < tracks_.size(); ++i) {
    Track& t = tracks_[i];
    const int64_t external = t.has_external_id ? t.external_id : t.tid.named ? static_cast<int64_t>(i) : t.tid.number;
    const LocationKind kind = !t.kind_given && t.runs_gpu_work ? LocationKind::kGpuStream : t.kind;
    t.location = builder_.AddLocation(names[i], kind, external);
  }
  for (Track& t : tracks_) builder_.SetLocationGroup(t.location, tracks_[leader[t.pid]].location.value);
}

// [pid, tid] -> location, or invalid.
LocationId ChromeParser::LocationOf(const json* ref) {
  if (ref == nullptr || !ref->is_array() || ref->size() != 2) return LocationId();
  const std::optional<TrackPart> pid = PartOf(&(*ref)[0]), tid = PartOf(&(*ref)[1]);
  if (!pid || !tid) return LocationId();
  auto it = track_index_.find({*pid, *tid});
  return it == track_index_.end() ? LocationId() : tracks_[it->second].location;
}

// The document's communicator number `comm` (its "communicators" list), or invalid.
CommunicatorId ChromeParser::CommunicatorOf(int64_t comm) const {
  if (comm < 0 || static_cast<size_t>(comm) >= communicators_) return CommunicatorId();
  return CommunicatorId(static_cast<uint32_t>(comm));
}

Status ChromeParser::AddCommunicators(const json* comms) {
  if (comms == nullptr || !comms->is_array()) return OkStatus();
  for (const json& c : *comms) {
    std::vector<LocationId> members;
    if (const json* m = Field(c, "members"); m != nullptr && m->is_array()) {
      for (const json& ref : *m) {
        const LocationId loc = LocationOf(&ref);
        if (!loc.valid()) return DataLoss(fmt::format("{}: communicator member {} is not a track", file_, ref.dump()));
        members.push_back(loc);
      }
    }
    builder_.AddCommunicator(StringField(c, "name"), std::move(members));
    ++communicators_;
  }
  return OkStatus();
}

// The flows of one (cat, id) in time order: message flows pair their k-th "s" with their k-th
// "f"; other flows form chains s -> t -> ... -> f, an arrow between consecutive ends.
void ChromeParser::GroupFlowChannels() {
  channels_.assign(flow_channels_.size(), {});
  for (uint32_t i = 0; i < flows_.size(); ++i) channels_[flow_keys_[i]].push_back(i);
  for (auto& c : channels_)
    std::stable_sort(c.begin(), c.end(), [&](uint32_t a, uint32_t b) { return flows_[a].time < flows_[b].time; });
}

// grainscope's message flows become messages. A flow with no partner stays an unmatched
// message when it names its peer track (grainscope's writer does), else it is dropped.
Status ChromeParser::AddMessages() {
  FifoMessageMatcher<uint32_t> matcher;
  for (const std::vector<uint32_t>& channel : channels_) {
    for (uint32_t i : channel) {
      if (!flows_[i].message_category || flows_[i].phase == 't') continue;
      if (flows_[i].phase == 's') {
        matcher.AddSend(flow_keys_[i], i);
      } else {
        matcher.AddReceive(flow_keys_[i], i);
      }
    }
  }
  matcher.Group();
  Status status;
  matcher.MatchAll([&](uint32_t, const uint32_t* start, const uint32_t* finish) {
    if (!status.ok()) return;
    status = AddMessage(start != nullptr ? &flows_[*start] : nullptr, finish != nullptr ? &flows_[*finish] : nullptr);
  });
  return status;
}

Status ChromeParser::AddMessage(Flow* s, Flow* f) {
  const json* args = s != nullptr ? s->args : f->args;
  MessageInfo info;
  const json* peer = args != nullptr ? Field(*args, "peer") : nullptr;
  info.sender = s != nullptr ? tracks_[s->track].location : LocationOf(peer);
  info.receiver = f != nullptr ? tracks_[f->track].location : LocationOf(peer);
  // "peer": null is grainscope's writer for a side nobody recorded (a receive whose send is
  // missing): the message stays, unmatched, with an unknown peer.
  const bool unknown_peer = peer != nullptr && peer->is_null();
  if (!unknown_peer && (!info.sender.valid() || !info.receiver.valid())) {
    ++unpaired_flows_;
    return OkStatus();
  }
  info.tag = static_cast<int32_t>(IntField(args, "tag", 0));
  info.bytes = static_cast<uint64_t>(IntField(args, "bytes", 0));
  if (args != nullptr) info.name = StringField(*args, "name");
  const int64_t comm = IntField(args, "communicator", -1);
  if (comm >= 0) {
    if (!CommunicatorOf(comm).valid())
      return DataLoss(fmt::format("{}: a message names communicator {}, which is not defined", file_, comm));
    info.communicator = CommunicatorOf(comm);
  }
  if (s != nullptr && s->args != nullptr && !StringField(*s->args, "grain").empty())
    info.send_grain = RegionFor(StringField(*s->args, "grain"), RegionRoleName(RegionRole::kGrain));
  if (f != nullptr && f->args != nullptr && !StringField(*f->args, "grain").empty())
    info.recv_grain = RegionFor(StringField(*f->args, "grain"), RegionRoleName(RegionRole::kGrain));
  const MessageId id = builder_.AddMessage(info);
  if (s != nullptr) s->message = id.value;
  if (f != nullptr) f->message = id.value;
  // The writer's id names the message (grainscope writes the message's number).
  auto which = [&](const Flow& end) {
    return end.numeric_id >= 0 ? fmt::format("message flow {}", end.numeric_id) : std::string("a message flow");
  };
  if (s == nullptr) unmatched_.NoSend([&] { return fmt::format("{}: {} is received but never sent", file_, which(*f)); });
  if (f == nullptr) unmatched_.NoReceive([&] { return fmt::format("{}: {} is sent but never received", file_, which(*s)); });
  // send_complete/recv_post name the writer's flow id, which is the message's number.
  const Flow& any = s != nullptr ? *s : *f;
  if (any.numeric_id >= 0 && any.message_category) message_of_flow_id_[any.numeric_id] = id;
  return OkStatus();
}

// Every other flow arrow is a dependency edge between the events its ends bound to. Arrows
// pointing back in time are dropped and counted (kept, with program order they could close a
// cycle no analysis can order).
void ChromeParser::AddFlowDependencies() {
  for (const std::vector<uint32_t>& channel : channels_) {
    const Flow* from = nullptr;
    for (uint32_t i : channel) {
      const Flow& f = flows_[i];
      if (f.message_category || f.dropped || f.event == kNoEvent) continue;
      if (f.phase == 's') {
        if (from != nullptr) ++unpaired_flows_;  // a start that never arrived anywhere
        from = &f;
        continue;
      }
      if (from == nullptr) {
        ++unpaired_flows_;  // an arrival without a start
      } else {
        AddDependency(*from, f);
      }
      from = f.phase == 't' ? &f : nullptr;
    }
    if (from != nullptr && from->phase == 's') ++unpaired_flows_;
  }
}

void ChromeParser::AddDependency(const Flow& from, const Flow& to) {
  const LocationId a = tracks_[from.track].location, b = tracks_[to.track].location;
  if (a == b && from.event == to.event) return;  // both ends on one event: no order to keep
  if (to.event_time < from.event_time || (a == b && to.event < from.event)) {
    ++flows_back_in_time_;
    return;
  }
  builder_.AddDependency(FlowDependencyKind(from.cat), a, from.event, b, to.event);
}

Status ChromeParser::AddCollectives() {
  for (auto& [key, args] : collective_args_) {
    CollectiveOp op = CollectiveOp::kOther;
    const std::string_view op_name = args != nullptr ? StringField(*args, "op") : "";
    for (int k = 0; k <= static_cast<int>(CollectiveOp::kOther); ++k)
      if (CollectiveOpName(static_cast<CollectiveOp>(k)) == op_name) op = static_cast<CollectiveOp>(k);
    const int64_t comm = IntField(args, "communicator", -1);
    const CommunicatorId communicator = CommunicatorOf(comm);
    const LocationId root = LocationOf(args != nullptr ? Field(*args, "root") : nullptr);
    collective_ids_.emplace(key, builder_.AddCollective(op, communicator, root));
  }
  return OkStatus();
}

// An NCCL kernel's first event after its Enter: its collective's begin or its message's send.
void ChromeParser::StartNccl(LocationId loc, TimeNs t, const NcclKernel& k) {
  if (k.p2p == NcclKernel::P2p::kSend) {
    builder_.Send(loc, t, k.message);
  } else if (k.p2p == NcclKernel::P2p::kNone) {
    builder_.CollBegin(loc, t, k.collective, k.bytes, k.bytes);
  }
}

// Rebuilds Enter/Leave order from slices. A slice closes when an item starts after its end;
// at equal times a new slice closes one that ends there (half-open intervals) while a point
// event stays inside it, unless the item carries the writer's depth hint.
void ChromeParser::BuildTrack(Track& track) {
  std::stable_sort(track.items.begin(), track.items.end(), [](const Item& a, const Item& b) {
    return a.time != b.time ? a.time < b.time : a.rank < b.rank;
  });
  const LocationId loc = track.location;
  builder_.Reserve(loc, track.items.size() * 2);
  std::vector<OpenSlice> open;
  // Dependency flows waiting for the next event of this track to bind to.
  std::vector<uint32_t> waiting;
  EventIndex last = kNoEvent;
  TimeNs last_time = 0;
  auto emitted = [&](EventIndex e, TimeNs t) {
    last = e;
    last_time = t;
    for (uint32_t f : waiting) flows_[f].event = e, flows_[f].event_time = t;
    waiting.clear();
  };
  auto close_top = [&](TimeNs at) {
    if (open.back().nccl != UINT32_MAX) {
      const NcclKernel& k = nccl_[open.back().nccl];
      if (k.p2p == NcclKernel::P2p::kReceive) {
        builder_.Recv(loc, at, k.message);
      } else if (k.p2p == NcclKernel::P2p::kNone) {
        builder_.CollEnd(loc, at, k.collective);
      }
    }
    const EventIndex e = builder_.Leave(loc, at, RegionId(open.back().region));
    if (const OpenSlice& o = open.back(); o.gpu_row != GpuTracker::kNone) {
      if (o.gpu_work) {
        gpu_.SetWorkLeave(o.gpu_row, e, at);
      } else {
        gpu_.SetCallLeave(o.gpu_row, e, at);
      }
    }
    emitted(e, at);
    open.pop_back();
  };
  // Closes timed slices that end before `t` (or at `t` when `inclusive`).
  auto close_ended = [&](TimeNs t, bool inclusive) {
    while (!open.empty() && !open.back().explicit_end &&
           (open.back().end < t || (inclusive && open.back().end == t))) {
      close_top(open.back().end);
    }
  };
  for (const Item& item : track.items) {
    const TimeNs t = item.time;
    close_ended(t, false);
    if (item.depth >= 0) {
      while (open.size() > static_cast<size_t>(item.depth) && !open.back().explicit_end && open.back().end <= t)
        close_top(open.back().end);
    } else if (item.kind == ItemKind::kSlice || item.kind == ItemKind::kBegin) {
      close_ended(t, true);
    }
    switch (item.kind) {
      case ItemKind::kSlice: {
        TimeNs end = item.end;
        if (!open.empty() && !open.back().explicit_end && open.back().end < end) {
          end = open.back().end;  // overlaps its parent: cut at the parent's end
          ++truncated_;
        }
        const EventIndex e = builder_.Enter(loc, t, RegionId(item.arg));
        bool work = false;
        const uint32_t gpu_row = StartGpuRow(item.gpu, loc, e, t, &work);
        const uint32_t nccl = NcclOf(item);
        open.push_back(OpenSlice{item.arg, end, false, e, t, gpu_row, work, nccl});
        emitted(e, t);
        if (nccl != UINT32_MAX) StartNccl(loc, t, nccl_[nccl]);
        break;
      }
      case ItemKind::kBegin: {
        const EventIndex e = builder_.Enter(loc, t, RegionId(item.arg));
        open.push_back(OpenSlice{item.arg, t, true, e, t, GpuTracker::kNone, false, UINT32_MAX});
        emitted(e, t);
        break;
      }
      case ItemKind::kEnd:
        close_ended(t, true);
        while (!open.empty() && !open.back().explicit_end) {  // timed slices outliving their "B"
          ++truncated_;
          close_top(t);
        }
        if (open.empty()) {
          ++stray_;
        } else {
          close_top(t);
        }
        break;
      case ItemKind::kMarker: emitted(builder_.MarkerOrSync(loc, t, StringId(item.arg)), t); break;
      case ItemKind::kFlow: {
        Flow& f = flows_[item.arg];
        if (f.dropped) break;
        if (!f.message_category) {
          // A start binds to the slice it is in (or the last event before it); an arrival with
          // "bp":"e" to the slice enclosing it, else to the next slice, as Chrome draws them.
          if (f.enclosing && !open.empty() && f.phase == 'f') {
            f.event = open.back().enter;
            f.event_time = open.back().enter_time;
          } else if (f.enclosing && last != kNoEvent) {
            f.event = last;
            f.event_time = last_time;
          } else {
            waiting.push_back(item.arg);
          }
          break;
        }
        if (f.message == UINT32_MAX) break;  // an unpaired flow without a peer
        if (f.phase == 's') {
          emitted(builder_.Send(loc, t, MessageId(f.message)), t);
        } else {
          emitted(builder_.Recv(loc, t, MessageId(f.message)), t);
        }
        break;
      }
      case ItemKind::kSendComplete:
      case ItemKind::kRecvPost: {
        auto m = message_of_flow_id_.find(item.arg);
        if (m == message_of_flow_id_.end()) {
          ++stray_;
        } else if (item.kind == ItemKind::kSendComplete) {
          emitted(builder_.SendComplete(loc, t, m->second), t);
        } else {
          emitted(builder_.RecvPost(loc, t, m->second), t);
        }
        break;
      }
      case ItemKind::kCollBegin:
      case ItemKind::kCollEnd: {
        auto c = collective_ids_.find(item.arg);
        if (c == collective_ids_.end()) {
          ++stray_;
        } else if (item.kind == ItemKind::kCollBegin) {
          emitted(builder_.CollBegin(loc, t, c->second, static_cast<uint64_t>(IntField(item.args, "bytes_sent", 0)),
                                     static_cast<uint64_t>(IntField(item.args, "bytes_received", 0))),
                  t);
        } else {
          emitted(builder_.CollEnd(loc, t, c->second), t);
        }
        break;
      }
    }
  }
  const TimeNs end = track.items.empty() ? 0 : track.items.back().time;
  while (!open.empty()) {
    if (open.back().explicit_end) ++unclosed_;
    close_top(open.back().explicit_end ? std::max(end, open.back().end) : open.back().end);
  }
  // Flows after the track's last event bind to a marker of their own.
  for (uint32_t f : waiting) {
    const TimeNs at = std::max(flows_[f].time, last_time);
    flows_[f].event = builder_.Marker(loc, at, builder_.Intern(flows_[f].cat));
    flows_[f].event_time = at;
  }
}

void ChromeParser::ReportDiagnostics() {
  Diagnostics& d = builder_.diagnostics();
  d.AddCount(Diag::kSkippedRecords, skipped_.total(), skipped_.Example());
  d.AddCount(Diag::kInvalidRecords, invalid_.total(), invalid_.Example());
  unmatched_.Report(d);
  d.AddCount(Diag::kUnpairedFlows, unpaired_flows_,
             fmt::format("{}: a flow event without a partner and without a 'peer' argument was dropped", file_));
  d.AddCount(Diag::kProfilerSpans, profiler_spans_, fmt::format("{}: the profiler's own tracks", file_));
  d.AddCount(Diag::kGpuSyncRecords, gpu_sync_records_, fmt::format("{}: \"cuda_sync\" slices", file_));
  d.AddCount(Diag::kLaunchFlowsReplaced, launch_flows_replaced_, fmt::format("{}: \"ac2g\" flows", file_));
  d.AddCount(Diag::kAnnotationFlows, annotation_flows_,
             fmt::format("{}: a flow of category \"critical_path\" (an analysis's answer drawn over the trace)", file_));
  d.AddCount(Diag::kFlowsBackInTime, flows_back_in_time_,
             fmt::format("{}: a flow arrow whose end is stamped before its start was not kept as a dependency", file_));
  d.AddCount(Diag::kTruncatedSlices, truncated_,
             fmt::format("{}: a slice that outlives its enclosing slice was cut at its end", file_));
  d.AddCount(Diag::kUnclosedSlices, unclosed_,
             fmt::format("{}: a \"B\" or \"b\" event without its end was closed at the track's last event", file_));
  if (doc_.layout.truncated && doc_.layout.events_whole) {
    d.Add(Diag::kFileTruncated, fmt::format("{}: the file ends at byte {}, after the event array: the document's "
                                            "members after it are missing (Kineto writes baseTimeNanoseconds there)",
                                            file_, doc_.content.size()));
  } else if (cut_at_) {
    d.Add(Diag::kFileTruncated,
          fmt::format("{}: the file ends at byte {} inside the event array; the events up to byte {} were read",
                      file_, doc_.content.size(), *cut_at_));
  }
  d.AddCount(Diag::kStrayEvents, stray_,
             fmt::format("{}: an \"E\" or \"e\" without its begin, or a request/collective event naming nothing", file_));
}

}  // namespace grainscope::chrome
