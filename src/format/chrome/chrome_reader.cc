#include "format/chrome/chrome_reader.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format/chrome/chrome_common.h"
#include "format/chrome/chrome_writer.h"
#include "model/message_matcher.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using json = nlohmann::json;

enum class ItemKind : uint8_t { kSlice, kBegin, kEnd, kMarker, kFlow, kSendComplete, kRecvPost, kCollBegin, kCollEnd };

// One event of a track, in file order until sorted by time.
struct Item {
  TimeNs time;
  ItemKind kind;
  int64_t depth = -1;  // the writer's nesting hint, or -1
  TimeNs end = 0;      // slices
  uint32_t arg = 0;    // RegionId, StringId, flow index, message key, collective key
  const json* args = nullptr;  // collective events: their own sizes
};

struct Track {
  int64_t pid, tid;
  std::string name;
  LocationKind kind = LocationKind::kThread;
  bool has_external_id = false;
  int64_t external_id = 0;
  std::vector<Item> items;
  LocationId location;
};

struct Flow {
  uint32_t track;
  bool start;
  const json* args;         // may be null
  int64_t numeric_id;       // the "id" when it is an integer, else -1
  bool message_category;    // written by grainscope as a message
  uint32_t message = UINT32_MAX;
};

struct OpenSlice {
  uint32_t region;
  TimeNs end;
  bool explicit_end;  // "B": closed by an "E", not by time
};

const json* Field(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

std::string_view StringField(const json& obj, std::string_view key) {
  const json* f = Field(obj, key);
  return f != nullptr && f->is_string() ? std::string_view(f->get_ref<const std::string&>()) : std::string_view();
}

int64_t IntField(const json* obj, std::string_view key, int64_t fallback) {
  const json* f = obj != nullptr ? Field(*obj, key) : nullptr;
  return f != nullptr && f->is_number_integer() ? f->get<int64_t>() : fallback;
}

class ChromeParser {
 public:
  ChromeParser(std::string_view content, std::string_view file)
      : content_(content), file_(file), builder_(std::string(kChromeFormat)) {}

  Result<Trace> Run() {
    GS_RETURN_IF_ERROR(Parse());
    const json* events = doc_.is_array() ? &doc_ : Field(doc_, "traceEvents");
    if (events == nullptr || !events->is_array()) {
      return DataLoss(fmt::format("{}: expected a JSON array of trace events or an object with a "
                                  "\"traceEvents\" array", file_));
    }
    const json* gs = Field(doc_, "grainscope");
    origin_ = IntField(gs, "origin_ns", 0);
    builder_.SetOrigin(origin_);
    if (const json* other = Field(doc_, "otherData"); other != nullptr && other->is_object()) {
      for (auto& [key, value] : other->items())
        if (value.is_string()) builder_.AddMetadata(key, value.get_ref<const std::string&>());
    }
    for (size_t i = 0; i < events->size(); ++i) GS_RETURN_IF_ERROR(ReadEvent((*events)[i], i));
    AddLocations();
    GS_RETURN_IF_ERROR(AddCommunicators(gs != nullptr ? Field(*gs, "communicators") : nullptr));
    GS_RETURN_IF_ERROR(AddMessages());
    GS_RETURN_IF_ERROR(AddCollectives());
    for (Track& t : tracks_) BuildTrack(t);
    ReportDiagnostics();
    Result<Trace> trace = builder_.Finish();
    if (!trace.ok()) return DataLoss(fmt::format("{}: {}", file_, trace.status().message()));
    return trace;
  }

 private:
  // The malformed-JSON message names the byte offset nlohmann stopped at.
  Status Parse() {
    try {
      doc_ = json::parse(content_.begin(), content_.end());
    } catch (const json::parse_error& e) {
      std::string what = e.what();
      if (size_t p = what.find("] "); p != std::string::npos) what = what.substr(p + 2);
      return DataLoss(fmt::format("{}: byte {}: not valid JSON: {}", file_, e.byte, what));
    } catch (const json::exception& e) {
      return DataLoss(fmt::format("{}: not valid JSON: {}", file_, e.what()));
    }
    return OkStatus();
  }

  template <typename... Args>
  Status EventError(size_t index, fmt::format_string<Args...> f, Args&&... args) {
    return DataLoss(fmt::format("{}: traceEvents[{}]: {}", file_, index, fmt::format(f, std::forward<Args>(args)...)));
  }

  Result<uint32_t> TrackOf(const json& ev, size_t index) {
    const json* pid = Field(ev, "pid");
    const json* tid = Field(ev, "tid");
    for (const json* id : {pid, tid}) {
      if (id != nullptr && !id->is_number_integer())
        return EventError(index, "'pid' and 'tid' must be integers, got {}", id->dump());
    }
    return TrackFor(pid != nullptr ? pid->get<int64_t>() : 0, tid != nullptr ? tid->get<int64_t>() : 0);
  }

  uint32_t TrackFor(int64_t pid, int64_t tid) {
    auto [it, added] = track_index_.emplace(std::make_pair(pid, tid), static_cast<uint32_t>(tracks_.size()));
    if (added) tracks_.push_back(Track{pid, tid});
    return it->second;
  }

  Result<TimeNs> Micros(const json& ev, std::string_view key, size_t index, bool required) {
    const json* v = Field(ev, key);
    if (v == nullptr) {
      if (required) return EventError(index, "'{}' is missing", key);
      return TimeNs{0};
    }
    if (!v->is_number()) return EventError(index, "'{}' must be a number of microseconds, got {}", key, v->dump());
    const double us = v->get<double>();
    if (!std::isfinite(us) || std::fabs(us) > 9.0e12) return EventError(index, "'{}' is out of range: {}", key, us);
    return static_cast<TimeNs>(std::llround(us * 1000.0));
  }

  RegionId RegionFor(std::string_view name, std::string_view cat) {
    auto key = std::make_pair(std::string(name), std::string(cat));
    auto it = regions_.find(key);
    if (it != regions_.end()) return it->second;
    RegionRole role = RegionRole::kFunction;
    for (RegionRole r : {RegionRole::kGrain, RegionRole::kFunction, RegionRole::kPointToPoint,
                         RegionRole::kCollective, RegionRole::kWait, RegionRole::kOther})
      if (RegionRoleName(r) == cat) role = r;
    const RegionId id = builder_.AddRegion(name, role, static_cast<int64_t>(regions_.size()));
    regions_.emplace(std::move(key), id);
    return id;
  }

  // {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"processor 1"}}
  Status ReadMetadata(const json& ev, size_t index) {
    const std::string_view what = StringField(ev, "name");
    const json* args = Field(ev, "args");
    if (what == "process_name") {
      const int64_t pid = IntField(&ev, "pid", 0);
      process_names_[pid] = std::string(args != nullptr ? StringField(*args, "name") : "");
    } else if (what == "thread_name") {
      GS_ASSIGN_OR_RETURN(uint32_t t, TrackOf(ev, index));
      Track& track = tracks_[t];
      if (args == nullptr) return OkStatus();
      track.name = std::string(StringField(*args, "name"));
      ParseLocationKind(StringField(*args, chrome::kKindArg), &track.kind);
      if (const json* id = Field(*args, chrome::kExternalIdArg); id != nullptr && id->is_number_integer()) {
        track.has_external_id = true;
        track.external_id = id->get<int64_t>();
      }
    }
    return OkStatus();
  }

  static bool ParseLocationKind(std::string_view name, LocationKind* kind) {
    for (LocationKind k : {LocationKind::kProcessor, LocationKind::kProcess, LocationKind::kThread, LocationKind::kRank}) {
      if (LocationKindName(k) == name) {
        *kind = k;
        return true;
      }
    }
    return false;
  }

  void Skip(std::string_view ph, size_t index) {
    if (skipped_++ == 0) first_skipped_ = fmt::format("{}: traceEvents[{}] has phase '{}'", file_, index, ph);
  }

  Status ReadEvent(const json& ev, size_t index) {
    if (!ev.is_object()) return EventError(index, "expected an object, got {}", ev.type_name());
    const json* ph_field = Field(ev, "ph");
    if (ph_field == nullptr || !ph_field->is_string()) return EventError(index, "'ph' (the phase) is missing");
    const std::string_view ph = ph_field->get_ref<const std::string&>();
    if (ph == "M") return ReadMetadata(ev, index);
    const bool known = ph == "X" || ph == "B" || ph == "E" || ph == "i" || ph == "I" || ph == "R" ||
                       ph == "s" || ph == "f";
    if (!known) {
      Skip(ph, index);
      return OkStatus();
    }
    GS_ASSIGN_OR_RETURN(uint32_t t, TrackOf(ev, index));
    GS_ASSIGN_OR_RETURN(TimeNs ts, Micros(ev, "ts", index, true));
    const std::string_view name = StringField(ev, "name");
    const std::string_view cat = StringField(ev, "cat");
    const json* args = Field(ev, "args");
    Item item{origin_ + ts, ItemKind::kMarker};
    item.depth = IntField(args, chrome::kDepthArg, -1);
    if (ph == "X" || ph == "B") {
      item.kind = ph == "X" ? ItemKind::kSlice : ItemKind::kBegin;
      item.arg = RegionFor(name, cat).value;
      if (ph == "X") {
        GS_ASSIGN_OR_RETURN(TimeNs dur, Micros(ev, "dur", index, false));
        if (dur < 0) return EventError(index, "'dur' is negative");
        item.end = item.time + dur;
      }
    } else if (ph == "E") {
      item.kind = ItemKind::kEnd;
    } else if (ph == "s" || ph == "f") {
      const json* id = Field(ev, "id");
      if (id == nullptr) return EventError(index, "flow event without 'id'");
      const std::string key = fmt::format("{}\x1f{}", cat, id->dump());
      item.kind = ItemKind::kFlow;
      item.arg = static_cast<uint32_t>(flows_.size());
      const uint32_t channel = flow_channels_.Id(key);
      if (ph == "s") {
        flow_matcher_.AddSend(channel, item.arg);
      } else {
        flow_matcher_.AddReceive(channel, item.arg);
      }
      flows_.push_back(Flow{t, ph == "s", args, id->is_number_integer() ? id->get<int64_t>() : -1,
                            cat == chrome::kMessageCategory});
    } else if (cat == chrome::kRequestCategory) {
      item.kind = name == "send_complete" ? ItemKind::kSendComplete : ItemKind::kRecvPost;
      item.arg = static_cast<uint32_t>(IntField(args, "message", -1));
    } else if (cat == chrome::kCollectiveCategory) {
      item.kind = name == "collective_begin" ? ItemKind::kCollBegin : ItemKind::kCollEnd;
      const int64_t id = IntField(args, "collective", -1);
      if (id < 0) return EventError(index, "collective event without an integer 'collective' argument");
      item.arg = static_cast<uint32_t>(id);
      item.args = args;
      if (item.kind == ItemKind::kCollBegin) collective_args_.emplace(id, args);
    } else {
      item.arg = builder_.Intern(name).value;
    }
    tracks_[t].items.push_back(item);
    return OkStatus();
  }

  // Locations in order of first appearance. A process's location is its track with tid == pid
  // (Chrome's main thread), else its first track.
  void AddLocations() {
    std::map<int64_t, uint32_t> leader;
    for (uint32_t i = 0; i < tracks_.size(); ++i) {
      const Track& t = tracks_[i];
      if (t.tid == t.pid || leader.count(t.pid) == 0) leader[t.pid] = i;
    }
    for (Track& t : tracks_) {
      std::string name = t.name;
      if (name.empty()) {
        auto p = process_names_.find(t.pid);
        name = p != process_names_.end() && leader[t.pid] == static_cast<uint32_t>(&t - tracks_.data())
                   ? p->second
                   : fmt::format("pid {} tid {}", t.pid, t.tid);
      }
      t.location = builder_.AddLocation(name, t.kind, t.has_external_id ? t.external_id : t.tid);
    }
    for (Track& t : tracks_) builder_.SetLocationGroup(t.location, tracks_[leader[t.pid]].location.value);
  }

  // [pid, tid] -> location, or invalid.
  LocationId LocationOf(const json* ref) {
    if (ref == nullptr || !ref->is_array() || ref->size() != 2 || !(*ref)[0].is_number_integer() ||
        !(*ref)[1].is_number_integer()) {
      return LocationId();
    }
    auto it = track_index_.find({(*ref)[0].get<int64_t>(), (*ref)[1].get<int64_t>()});
    return it == track_index_.end() ? LocationId() : tracks_[it->second].location;
  }

  Status AddCommunicators(const json* comms) {
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
      ++builder_communicators_;
    }
    return OkStatus();
  }

  // The k-th "s" of a (cat, id) pairs with its k-th "f". A flow with no partner stays an
  // unmatched message when it names its peer track (grainscope's writer does), else it is dropped.
  Status AddMessages() {
    flow_matcher_.Group();
    Status status;
    flow_matcher_.MatchAll([&](uint32_t, const uint32_t* start, const uint32_t* finish) {
      if (!status.ok()) return;
      Flow* s = start != nullptr ? &flows_[*start] : nullptr;
      Flow* f = finish != nullptr ? &flows_[*finish] : nullptr;
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
        return;
      }
      info.tag = static_cast<int32_t>(IntField(args, "tag", 0));
      info.bytes = static_cast<uint64_t>(IntField(args, "bytes", 0));
      if (args != nullptr) info.name = StringField(*args, "name");
      const int64_t comm = IntField(args, "communicator", -1);
      if (comm >= 0) {
        if (static_cast<size_t>(comm) >= builder_communicators_) {
          status = DataLoss(fmt::format("{}: a message names communicator {}, which is not defined", file_, comm));
          return;
        }
        info.communicator = CommunicatorId(static_cast<uint32_t>(comm));
      }
      if (s != nullptr && s->args != nullptr && !StringField(*s->args, "grain").empty())
        info.send_grain = RegionFor(StringField(*s->args, "grain"), RegionRoleName(RegionRole::kGrain));
      if (f != nullptr && f->args != nullptr && !StringField(*f->args, "grain").empty())
        info.recv_grain = RegionFor(StringField(*f->args, "grain"), RegionRoleName(RegionRole::kGrain));
      const MessageId id = builder_.AddMessage(info);
      if (s != nullptr) s->message = id.value;
      if (f != nullptr) f->message = id.value;
      if (s == nullptr) ++receives_without_send_;
      if (f == nullptr) ++sends_without_receive_;
      // send_complete/recv_post name the writer's flow id, which is the message's number.
      const Flow& any = s != nullptr ? *s : *f;
      if (any.numeric_id >= 0 && any.message_category) message_of_flow_id_[any.numeric_id] = id;
    });
    return status;
  }

  Status AddCollectives() {
    for (auto& [id, args] : collective_args_) {
      CollectiveOp op = CollectiveOp::kOther;
      const std::string_view op_name = args != nullptr ? StringField(*args, "op") : "";
      for (int k = 0; k <= static_cast<int>(CollectiveOp::kOther); ++k)
        if (CollectiveOpName(static_cast<CollectiveOp>(k)) == op_name) op = static_cast<CollectiveOp>(k);
      const int64_t comm = IntField(args, "communicator", -1);
      CommunicatorId communicator;
      if (comm >= 0 && static_cast<size_t>(comm) < builder_communicators_) communicator = CommunicatorId(static_cast<uint32_t>(comm));
      const LocationId root = LocationOf(args != nullptr ? Field(*args, "root") : nullptr);
      collective_ids_.emplace(id, builder_.AddCollective(op, communicator, root));
    }
    return OkStatus();
  }

  void BuildTrack(Track& track);
  void ReportDiagnostics();

  std::string_view content_;
  std::string_view file_;
  TraceBuilder builder_;
  json doc_;
  TimeNs origin_ = 0;
  std::vector<Track> tracks_;
  std::map<std::pair<int64_t, int64_t>, uint32_t> track_index_;
  std::map<int64_t, std::string> process_names_;
  std::map<std::pair<std::string, std::string>, RegionId> regions_;
  std::vector<Flow> flows_;
  // The k-th "s" of a (cat, id) pairs with its k-th "f": channels are (cat, id), in order of first
  // appearance; the ends are indices into flows_.
  ChannelIds<std::string> flow_channels_;
  FifoMessageMatcher<uint32_t> flow_matcher_;
  std::map<int64_t, MessageId> message_of_flow_id_;
  std::map<int64_t, const json*> collective_args_;
  std::map<int64_t, CollectiveId> collective_ids_;
  size_t builder_communicators_ = 0;
  uint64_t skipped_ = 0, unpaired_flows_ = 0, receives_without_send_ = 0, sends_without_receive_ = 0, truncated_ = 0, unclosed_ = 0, stray_ = 0;
  std::string first_skipped_;
};

// Rebuilds Enter/Leave order from slices. A slice closes when an item starts after its end;
// at equal times a new slice closes one that ends there (half-open intervals) while a point
// event stays inside it, unless the item carries the writer's depth hint.
void ChromeParser::BuildTrack(Track& track) {
  std::stable_sort(track.items.begin(), track.items.end(),
                   [](const Item& a, const Item& b) { return a.time < b.time; });
  const LocationId loc = track.location;
  builder_.Reserve(loc, track.items.size() * 2);
  std::vector<OpenSlice> open;
  auto close_top = [&](TimeNs at) {
    builder_.Leave(loc, at, RegionId(open.back().region));
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
        open.push_back(OpenSlice{item.arg, end, false});
        builder_.Enter(loc, t, RegionId(item.arg));
        break;
      }
      case ItemKind::kBegin:
        open.push_back(OpenSlice{item.arg, t, true});
        builder_.Enter(loc, t, RegionId(item.arg));
        break;
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
      case ItemKind::kMarker: builder_.Marker(loc, t, StringId(item.arg)); break;
      case ItemKind::kFlow: {
        const Flow& f = flows_[item.arg];
        if (f.message == UINT32_MAX) break;  // an unpaired flow without a peer
        if (f.start) {
          builder_.Send(loc, t, MessageId(f.message));
        } else {
          builder_.Recv(loc, t, MessageId(f.message));
        }
        break;
      }
      case ItemKind::kSendComplete:
      case ItemKind::kRecvPost: {
        auto m = message_of_flow_id_.find(item.arg);
        if (m == message_of_flow_id_.end()) {
          ++stray_;
        } else if (item.kind == ItemKind::kSendComplete) {
          builder_.SendComplete(loc, t, m->second);
        } else {
          builder_.RecvPost(loc, t, m->second);
        }
        break;
      }
      case ItemKind::kCollBegin:
      case ItemKind::kCollEnd: {
        auto c = collective_ids_.find(item.arg);
        if (c == collective_ids_.end()) {
          ++stray_;
        } else if (item.kind == ItemKind::kCollBegin) {
          builder_.CollBegin(loc, t, c->second, static_cast<uint64_t>(IntField(item.args, "bytes_sent", 0)),
                             static_cast<uint64_t>(IntField(item.args, "bytes_received", 0)));
        } else {
          builder_.CollEnd(loc, t, c->second);
        }
        break;
      }
    }
  }
  const TimeNs last = track.items.empty() ? 0 : track.items.back().time;
  while (!open.empty()) {
    if (open.back().explicit_end) ++unclosed_;
    close_top(open.back().explicit_end ? std::max(last, open.back().end) : open.back().end);
  }
}

void ChromeParser::ReportDiagnostics() {
  Diagnostics& d = builder_.diagnostics();
  d.AddCount("skipped_records", skipped_, first_skipped_);
  d.AddCount("receives_without_send", receives_without_send_, fmt::format("{}: a flow event has no partner", file_));
  d.AddCount("sends_without_receive", sends_without_receive_, fmt::format("{}: a flow event has no partner", file_));
  d.AddCount("unpaired_flows", unpaired_flows_,
             fmt::format("{}: a flow event without a partner and without a 'peer' argument was dropped", file_));
  d.AddCount("truncated_slices", truncated_,
             fmt::format("{}: a slice that outlives its enclosing slice was cut at its end", file_));
  d.AddCount("unclosed_slices", unclosed_,
             fmt::format("{}: a \"B\" event without its \"E\" was closed at the track's last event", file_));
  d.AddCount("stray_events", stray_,
             fmt::format("{}: an \"E\" without a \"B\", or a request/collective event naming nothing", file_));
}

}  // namespace

Result<Trace> ReadChromeJson(std::string_view content, std::string_view file_name) {
  return ChromeParser(content, file_name).Run();
}

bool LooksLikeChromeJson(std::string_view head) {
  const size_t p = head.find_first_not_of(" \t\r\n");
  return p != std::string_view::npos && (head[p] == '{' || head[p] == '[');
}

namespace {
Sniff SniffChromeJson(const TraceProbe& probe) { return LooksLikeChromeJson(probe.head) ? Sniff::kSure : Sniff::kNo; }
}  // namespace

constinit const Importer kChromeImporter{kChromeFormat, SniffChromeJson, nullptr, ReadChromeJson};

}  // namespace grainscope
