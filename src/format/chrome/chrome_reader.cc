#include "format/chrome/chrome_reader.h"

#include <algorithm>
#include <map>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "format/chrome/chrome_common.h"
#include "format/chrome/chrome_documents.h"
#include "format/chrome/chrome_json.h"
#include "model/message_matcher.h"
#include "model/metadata_keys.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using json = nlohmann::json;

enum class ItemKind : uint8_t { kSlice, kBegin, kEnd, kMarker, kFlow, kSendComplete, kRecvPost, kCollBegin, kCollEnd };

// One event of a track, in file order until sorted by time.
struct Item {
  TimeNs time;
  ItemKind kind;
  // At equal times: 0 before the other items (a flow into the next slice), 1 the others, 2 after
  // them (a flow out of, or into, the slice that encloses it, which may begin at that time).
  uint8_t rank = 1;
  int64_t depth = -1;  // the writer's nesting hint, or -1
  TimeNs end = 0;      // slices
  uint32_t arg = 0;    // RegionId, StringId, flow index, message key, collective key
  const json* args = nullptr;  // collective events: their own sizes
};

// A "pid" or "tid": an integer, or a name (Kineto's "Spans", "GPU 0"; rocprofiler quotes its
// integers, "3", which read as the integer).
struct TrackPart {
  uint32_t doc = 0;  // the file it comes from (a rank directory's files each have their own pids)
  int64_t number = 0;
  std::string name;
  bool named = false;
  auto operator<=>(const TrackPart&) const = default;
  std::string Label(std::string_view what) const {
    if (!named) return fmt::format("{} {}", what, number);
    return name.empty() ? fmt::format("{} \"\"", what) : name;
  }
};

struct Track {
  TrackPart pid, tid;
  std::string name;
  LocationKind kind = LocationKind::kThread;
  bool kind_given = false;  // grainscope's writer names each track's kind
  bool runs_gpu_work = false;  // holds kernels, copies or memsets (Kineto's GPU stream tracks)
  bool has_external_id = false;
  int64_t external_id = 0;
  std::optional<int64_t> sort_index;
  std::vector<Item> items;
  LocationId location;
};

struct Process {
  std::string name, labels;
  std::optional<int64_t> sort_index;
};

// One end of a flow arrow ("s" start, "t" step, "f" finish), and the event it binds to once its
// track is built.
struct Flow {
  uint32_t track;
  char phase;               // 's', 't' or 'f'
  bool enclosing;           // binds to the enclosing slice ("s", "t", and "f" with "bp":"e")
  TimeNs time;
  std::string_view cat;
  const json* args;         // may be null
  int64_t numeric_id;       // the "id" when it is an integer, else -1
  bool message_category;    // written by grainscope as a message
  uint32_t message = UINT32_MAX;
  EventIndex event = kNoEvent;  // the event it binds to (dependency flows)
  TimeNs event_time = 0;
};

struct OpenSlice {
  uint32_t region;
  TimeNs end;
  bool explicit_end;  // "B": closed by an "E", not by time
  EventIndex enter;
  TimeNs enter_time;
};

// An async slice ("b" ... "e" of one (pid, cat, id)), laid on a lane of its process.
struct AsyncSlice {
  TrackPart pid;
  TimeNs begin, end;
  uint32_t region;
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

std::optional<int64_t> OptionalInt(const json* obj, std::string_view key) {
  const json* f = obj != nullptr ? Field(*obj, key) : nullptr;
  if (f == nullptr || !f->is_number_integer()) return std::nullopt;
  return f->get<int64_t>();
}

// Slice categories Kineto gives only the work of a GPU stream.
bool IsGpuWork(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "gpu_user_annotation";
}

// Flow categories with a meaning in the dependency model; any other flow is kOther.
DependencyKind FlowDependencyKind(std::string_view cat) {
  if (cat == "ac2g") return DependencyKind::kGpuLaunch;  // Kineto: a launch on the host -> its GPU kernel
  DependencyKind kind;
  if (ParseDependencyKind(cat, &kind)) return kind;
  return DependencyKind::kOther;
}

// Records that cannot be read are skipped, never fatal: per reason a count and the first index.
class SkipCounter {
 public:
  void Add(std::string reason, std::string_view file, size_t index) {
    auto [it, added] = reasons_.try_emplace(std::move(reason), Entry{0, index, std::string(file)});
    ++it->second.count;
    ++total_;
  }
  uint64_t total() const { return total_; }
  // "traceEvents[0]: 'ph' (the phase) is missing (1 record); ..."
  std::string Example() const {
    std::string out;
    for (const auto& [reason, e] : reasons_) {
      if (!out.empty()) out += "; ";
      out += fmt::format("{}: traceEvents[{}]: {} ({} record{})", e.file, e.first, reason, e.count, e.count == 1 ? "" : "s");
    }
    return out;
  }

 private:
  struct Entry {
    uint64_t count;
    size_t first;
    std::string file;
  };
  std::map<std::string, Entry> reasons_;
  uint64_t total_ = 0;
};

class ChromeParser {
 public:
  // `source` names the trace in messages: the file, or the directory of a rank directory's files.
  ChromeParser(std::vector<chrome::Document> docs, std::string_view source)
      : docs_(std::move(docs)),
        file_(source),
        builder_(std::string(docs_.front().rank >= 0 ? kChromeRanksFormat : kChromeFormat)) {}

  Result<Trace> Run(const chrome::DocumentNotes& notes) {
    TimeNs origin = kNoTime;
    for (doc_ = 0; doc_ < docs_.size(); ++doc_) {
      GS_ASSIGN_OR_RETURN(const TimeNs doc_origin, ReadDocument());
      origin = std::min(origin, doc_origin);
    }
    builder_.SetOrigin(origin == kNoTime ? 0 : origin);
    LayAsyncSlices();
    SortTracks();
    AddLocations();
    comm_base_.assign(docs_.size() + 1, 0);
    for (doc_ = 0; doc_ < docs_.size(); ++doc_) {
      comm_base_[doc_] = builder_communicators_;
      const json* gs = Field(docs_[doc_].json, "grainscope");
      GS_RETURN_IF_ERROR(AddCommunicators(gs != nullptr ? Field(*gs, "communicators") : nullptr));
    }
    comm_base_[docs_.size()] = builder_communicators_;
    GroupFlowChannels();
    GS_RETURN_IF_ERROR(AddMessages());
    GS_RETURN_IF_ERROR(AddCollectives());
    for (Track& t : tracks_) BuildTrack(t);
    AddFlowDependencies();
    builder_.SetEagerLimitIfRecorded();  // an MPI trace grainscope wrote: its rendezvous sends
    ReportDiagnostics();
    for (const auto& [kind, count, example] : notes.diagnostics) builder_.diagnostics().AddCount(kind, count, example);
    for (const auto& [key, value] : notes.metadata) builder_.AddMetadata(key, value);
    Result<Trace> trace = builder_.Finish();
    if (!trace.ok()) return DataLoss(fmt::format("{}: {}", file_, trace.status().message()));
    return trace;
  }

 private:
  // Reads document doc_'s events into tracks; returns where its time zero is (kNoTime when it
  // has no events and names none).
  Result<TimeNs> ReadDocument() {
    const json& doc = docs_[doc_].json;
    const json* events = doc.is_array() ? &doc : Field(doc, "traceEvents");
    if (events == nullptr || !events->is_array()) {
      return DataLoss(fmt::format("{}: expected a JSON array of trace events or an object with a "
                                  "\"traceEvents\" array", docs_[doc_].file));
    }
    const json* gs = Field(doc, "grainscope");
    // grainscope's writer keeps its origin; Kineto's "ts" count from "baseTimeNanoseconds".
    const bool origin_given = (gs != nullptr && Field(*gs, "origin_ns") != nullptr) ||
                              Field(doc, "baseTimeNanoseconds") != nullptr;
    origin_ = IntField(gs, "origin_ns", IntField(&doc, "baseTimeNanoseconds", 0));
    earliest_ = kNoTime;
    if (const json* other = Field(doc, "otherData"); other != nullptr && other->is_object()) {
      for (auto& [key, value] : other->items())
        if (value.is_string()) builder_.AddMetadata(RankPrefix(doc_) + key, value.get_ref<const std::string&>());
    }
    for (size_t i = 0; i < events->size(); ++i) ReadEvent((*events)[i], i);
    // A file that names no time zero (older Kineto traces count "ts" from the Unix epoch) starts
    // the run at its earliest event, as Perfetto and HTA show it; 1970 would be no one's time zero.
    if (origin_given) return origin_;
    return earliest_ == kNoTime && docs_.size() == 1 ? TimeNs{0} : earliest_;
  }

  // "rank 3 " for a rank directory's file, "" for a single file: what its names are prefixed with.
  std::string RankPrefix(uint32_t doc) const {
    return docs_[doc].rank < 0 ? std::string() : fmt::format("rank {} ", docs_[doc].rank);
  }

 private:
  // A field that names a track part: an integer, or a string (a quoted integer reads as one).
  static std::optional<TrackPart> PartOf(const json* id, uint32_t doc) {
    TrackPart p;
    p.doc = doc;
    if (id == nullptr) return p;
    if (id->is_number_integer()) {
      p.number = id->get<int64_t>();
      return p;
    }
    if (!id->is_string()) return std::nullopt;
    const std::string& s = id->get_ref<const std::string&>();
    int64_t n = 0;
    const char* end = s.data() + s.size();
    if (!s.empty() && std::from_chars(s.data(), end, n).ptr == end) {
      p.number = n;
    } else {
      p.name = s;
      p.named = true;
    }
    return p;
  }

  // The track of an event, or nullopt with `why` set.
  std::optional<uint32_t> TrackOf(const json& ev, std::string* why) {
    const std::optional<TrackPart> pid = PartOf(Field(ev, "pid"), doc_), tid = PartOf(Field(ev, "tid"), doc_);
    if (!pid || !tid) {
      *why = "'pid' and 'tid' must be integers or strings";
      return std::nullopt;
    }
    return TrackFor(*pid, *tid);
  }

  uint32_t TrackFor(const TrackPart& pid, const TrackPart& tid) {
    auto [it, added] = track_index_.emplace(std::make_pair(pid, tid), static_cast<uint32_t>(tracks_.size()));
    if (added) tracks_.push_back(Track{pid, tid});
    return it->second;
  }

  // A time field in microseconds: a JSON integer, or a decimal kept as text (chrome_json.h).
  // Absent and optional: 0. Otherwise nullopt with `why` set.
  std::optional<TimeNs> Micros(const json& ev, std::string_view key, bool required, std::string* why) {
    const json* v = Field(ev, key);
    if (v == nullptr) {
      if (!required) return TimeNs{0};
      *why = fmt::format("'{}' is missing", key);
      return std::nullopt;
    }
    TimeNs ns = 0;
    if (v->is_number_integer()) {  // unsigned above INT64_MAX included
      if (!v->is_number_unsigned() || v->get<uint64_t>() <= static_cast<uint64_t>(INT64_MAX)) {
        if (!__builtin_mul_overflow(v->get<int64_t>(), int64_t{1000}, &ns)) return ns;
      }
      *why = fmt::format("'{}' is out of range: {}", key, v->dump());
      return std::nullopt;
    }
    if (v->is_string()) {
      const std::string& s = v->get_ref<const std::string&>();
      if (chrome::MicrosToNs(s, &ns)) return ns;
      // A number outside int64 nanoseconds, or not a number at all.
      if (!s.empty() && s.find_first_not_of("+-0123456789.eE") == std::string::npos) {
        *why = fmt::format("'{}' is out of range: {}", key, s);
        return std::nullopt;
      }
    }
    *why = fmt::format("'{}' must be a number of microseconds, got {}", key, v->dump());
    return std::nullopt;
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

  // {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"processor 1"}}; also
  // process_labels and the sort indices. Other metadata names are ignored.
  void ReadMetadata(const json& ev, size_t index) {
    const std::string_view what = StringField(ev, "name");
    const json* args = Field(ev, "args");
    const std::optional<TrackPart> pid = PartOf(Field(ev, "pid"), doc_);
    if (!pid) return Invalid("'pid' must be an integer or a string", index);
    if (what == "process_name" || what == "process_labels" || what == "process_sort_index") {
      Process& p = processes_[*pid];
      if (what == "process_name") p.name = std::string(args != nullptr ? StringField(*args, "name") : "");
      if (what == "process_labels") p.labels = std::string(args != nullptr ? StringField(*args, "labels") : "");
      if (what == "process_sort_index") p.sort_index = OptionalInt(args, "sort_index");
      return;
    }
    if (what != "thread_name" && what != "thread_sort_index") return;
    std::string why;
    const std::optional<uint32_t> t = TrackOf(ev, &why);
    if (!t) return Invalid(why, index);
    Track& track = tracks_[*t];
    if (args == nullptr) return;
    if (what == "thread_sort_index") {
      track.sort_index = OptionalInt(args, "sort_index");
      return;
    }
    track.name = std::string(StringField(*args, "name"));
    track.kind_given = ParseLocationKind(StringField(*args, chrome::kKindArg), &track.kind);
    if (const json* id = Field(*args, chrome::kExternalIdArg); id != nullptr && id->is_number_integer()) {
      track.has_external_id = true;
      track.external_id = id->get<int64_t>();
    }
  }

  void Skip(std::string_view ph, size_t index) {
    skipped_.Add(fmt::format("phase '{}' is not modelled", ph), docs_[doc_].file, index);
  }
  void Invalid(std::string why, size_t index) { invalid_.Add(std::move(why), docs_[doc_].file, index); }

  void ReadEvent(const json& ev, size_t index) {
    if (!ev.is_object()) return Invalid(fmt::format("expected an object, got {}", ev.type_name()), index);
    const json* ph_field = Field(ev, "ph");
    if (ph_field == nullptr || !ph_field->is_string()) return Invalid("'ph' (the phase) is missing", index);
    const std::string_view ph = ph_field->get_ref<const std::string&>();
    if (ph == "M") return ReadMetadata(ev, index);
    const bool known = ph == "X" || ph == "B" || ph == "E" || ph == "i" || ph == "I" || ph == "R" || ph == "s" ||
                       ph == "t" || ph == "f" || ph == "b" || ph == "e";
    if (!known) return Skip(ph, index);
    std::string why;
    const std::optional<TimeNs> ts = Micros(ev, "ts", true, &why);
    if (!ts) return Invalid(why, index);
    Item item{0, ItemKind::kMarker};
    if (__builtin_add_overflow(origin_, *ts, &item.time)) return Invalid("'ts' is out of range", index);
    const std::string_view name = StringField(ev, "name");
    const std::string_view cat = StringField(ev, "cat");
    if (ph == "b" || ph == "e") return ReadAsync(ev, ph == "b", item.time, name, cat, index);
    const std::optional<uint32_t> t = TrackOf(ev, &why);
    if (!t) return Invalid(why, index);
    const json* args = Field(ev, "args");
    item.depth = IntField(args, chrome::kDepthArg, -1);
    if (ph == "X" || ph == "B") {
      item.kind = ph == "X" ? ItemKind::kSlice : ItemKind::kBegin;
      item.arg = RegionFor(name, cat).value;
      if (IsGpuWork(cat)) tracks_[*t].runs_gpu_work = true;
      if (ph == "X") {
        const std::optional<TimeNs> dur = Micros(ev, "dur", false, &why);
        if (!dur) return Invalid(why, index);
        if (*dur < 0) return Invalid("'dur' is negative", index);
        if (__builtin_add_overflow(item.time, *dur, &item.end)) return Invalid("'dur' is out of range", index);
      }
    } else if (ph == "E") {
      item.kind = ItemKind::kEnd;
    } else if (ph == "s" || ph == "t" || ph == "f") {
      const json* id = Field(ev, "id");
      if (id == nullptr) return Invalid("flow event without 'id'", index);
      const std::string key = fmt::format("{}\x1f{}\x1f{}", doc_, cat, id->dump());
      item.kind = ItemKind::kFlow;
      item.arg = static_cast<uint32_t>(flows_.size());
      const bool enclosing = ph != "f" || StringField(ev, "bp") == "e";
      if (cat != chrome::kMessageCategory) item.rank = enclosing ? 2 : 0;  // messages keep file order
      flows_.push_back(Flow{*t, ph[0], enclosing, item.time, cat, args,
                            id->is_number_integer() ? id->get<int64_t>() : -1, cat == chrome::kMessageCategory});
      flow_keys_.push_back(flow_channels_.Id(key));
    } else if (cat == chrome::kRequestCategory) {
      item.kind = name == "send_complete" ? ItemKind::kSendComplete : ItemKind::kRecvPost;
      item.arg = static_cast<uint32_t>(IntField(args, "message", -1));
    } else if (cat == chrome::kCollectiveCategory) {
      item.kind = name == "collective_begin" ? ItemKind::kCollBegin : ItemKind::kCollEnd;
      const int64_t id = IntField(args, "collective", -1);
      if (id < 0) return Invalid("collective event without an integer 'collective' argument", index);
      item.arg = static_cast<uint32_t>(id);
      item.args = args;
      if (item.kind == ItemKind::kCollBegin) collective_args_.emplace(std::make_pair(doc_, id), args);
    } else {
      item.arg = builder_.Intern(name).value;
    }
    tracks_[*t].items.push_back(item);
    earliest_ = std::min(earliest_, item.time);  // of the records kept: a skipped one sets no time zero
  }

  // "b"/"e" of one (pid, cat, id) nest like "B"/"E"; an "e" closes the innermost "b" of its id.
  void ReadAsync(const json& ev, bool begin, TimeNs t, std::string_view name, std::string_view cat, size_t index) {
    const json* id = Field(ev, "id");
    if (id == nullptr) id = Field(ev, "id2");
    if (id == nullptr) return Invalid("async event without 'id'", index);
    const std::optional<TrackPart> pid = PartOf(Field(ev, "pid"), doc_);
    if (!pid) return Invalid("'pid' must be an integer or a string", index);
    std::vector<std::pair<uint32_t, TimeNs>>& open = open_async_[std::make_tuple(*pid, std::string(cat), id->dump())];
    if (begin) {
      open.emplace_back(RegionFor(name, cat).value, t);
      earliest_ = std::min(earliest_, t);
    } else if (open.empty()) {
      ++stray_;
    } else {
      async_.push_back(AsyncSlice{*pid, open.back().second, std::max(t, open.back().second), open.back().first});
      open.pop_back();
      async_end_ = std::max(async_end_, t);
    }
  }

  // Async slices overlap freely; as Perfetto does, each process's are packed into lanes (tracks
  // "<process> async <k>") where they nest or follow one another.
  void LayAsyncSlices() {
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
  // first appearance (the order Chrome and Perfetto show them in). A rank directory's files one
  // after another, in rank order.
  void SortTracks() {
    std::map<TrackPart, uint32_t> first_track;  // a process's place: where its first track appeared
    for (uint32_t i = 0; i < tracks_.size(); ++i) first_track.emplace(tracks_[i].pid, i);
    auto key = [&](uint32_t i) {
      const Track& t = tracks_[i];
      auto p = processes_.find(t.pid);
      const std::optional<int64_t> ps = p == processes_.end() ? std::nullopt : p->second.sort_index;
      return std::make_tuple(t.pid.doc, !ps.has_value(), ps.value_or(0), first_track[t.pid], !t.sort_index.has_value(),
                             t.sort_index.value_or(0), i);
    };
    std::vector<uint32_t> order(tracks_.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return key(a) < key(b); });
    if (std::is_sorted(order.begin(), order.end())) return;
    std::vector<Track> sorted;
    sorted.reserve(tracks_.size());
    std::vector<uint32_t> new_index(tracks_.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
      new_index[order[i]] = i;
      sorted.push_back(std::move(tracks_[order[i]]));
    }
    tracks_ = std::move(sorted);
    for (auto& [k, index] : track_index_) index = new_index[index];
    for (Flow& f : flows_) f.track = new_index[f.track];
  }

  // Locations in track order. A process's location is its track with tid == pid (Chrome's main
  // thread), else its first track. A track without a thread_name is named after its process
  // (the process's own track) or "pid P tid T"; a name two processes' tracks share (Kineto's
  // "stream 7" on every GPU) is prefixed with the process's label or name. In a rank directory
  // every name starts with its rank ("rank 1 stream 7").
  void AddLocations() {
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
      by_name[RankPrefix(t.pid.doc) + names[i]].push_back(i);
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
    for (uint32_t i = 0; i < tracks_.size(); ++i) names[i] = RankPrefix(tracks_[i].pid.doc) + names[i];
    for (uint32_t i = 0; i < tracks_.size(); ++i) {
      Track& t = tracks_[i];
      const int64_t external = t.has_external_id ? t.external_id : t.tid.named ? static_cast<int64_t>(i) : t.tid.number;
      const LocationKind kind = !t.kind_given && t.runs_gpu_work ? LocationKind::kGpuStream : t.kind;
      t.location = builder_.AddLocation(names[i], kind, external);
    }
    for (Track& t : tracks_) builder_.SetLocationGroup(t.location, tracks_[leader[t.pid]].location.value);
  }

  // [pid, tid] -> location, or invalid.
  LocationId LocationOf(const json* ref, uint32_t doc) {
    if (ref == nullptr || !ref->is_array() || ref->size() != 2) return LocationId();
    const std::optional<TrackPart> pid = PartOf(&(*ref)[0], doc), tid = PartOf(&(*ref)[1], doc);
    if (!pid || !tid) return LocationId();
    auto it = track_index_.find({*pid, *tid});
    return it == track_index_.end() ? LocationId() : tracks_[it->second].location;
  }

  // A document's communicator number `comm` (its "communicators" list), or invalid.
  CommunicatorId CommunicatorOf(uint32_t doc, int64_t comm) const {
    if (comm < 0 || static_cast<size_t>(comm) >= comm_base_[doc + 1] - comm_base_[doc]) return CommunicatorId();
    return CommunicatorId(static_cast<uint32_t>(comm_base_[doc] + comm));
  }

  Status AddCommunicators(const json* comms) {
    if (comms == nullptr || !comms->is_array()) return OkStatus();
    for (const json& c : *comms) {
      std::vector<LocationId> members;
      if (const json* m = Field(c, "members"); m != nullptr && m->is_array()) {
        for (const json& ref : *m) {
          const LocationId loc = LocationOf(&ref, doc_);
          if (!loc.valid())
            return DataLoss(fmt::format("{}: communicator member {} is not a track", docs_[doc_].file, ref.dump()));
          members.push_back(loc);
        }
      }
      builder_.AddCommunicator(StringField(c, "name"), std::move(members));
      ++builder_communicators_;
    }
    return OkStatus();
  }

  // The flows of one (cat, id) in time order: message flows pair their k-th "s" with their k-th
  // "f"; other flows form chains s -> t -> ... -> f, an arrow between consecutive ends.
  void GroupFlowChannels() {
    channels_.assign(flow_channels_.size(), {});
    for (uint32_t i = 0; i < flows_.size(); ++i) channels_[flow_keys_[i]].push_back(i);
    for (auto& c : channels_)
      std::stable_sort(c.begin(), c.end(), [&](uint32_t a, uint32_t b) { return flows_[a].time < flows_[b].time; });
  }

  // grainscope's message flows become messages. A flow with no partner stays an unmatched
  // message when it names its peer track (grainscope's writer does), else it is dropped.
  Status AddMessages() {
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

  Status AddMessage(Flow* s, Flow* f) {
    const json* args = s != nullptr ? s->args : f->args;
    MessageInfo info;
    const json* peer = args != nullptr ? Field(*args, "peer") : nullptr;
    const uint32_t doc = tracks_[s != nullptr ? s->track : f->track].pid.doc;
    info.sender = s != nullptr ? tracks_[s->track].location : LocationOf(peer, doc);
    info.receiver = f != nullptr ? tracks_[f->track].location : LocationOf(peer, doc);
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
      if (!CommunicatorOf(doc, comm).valid())
        return DataLoss(fmt::format("{}: a message names communicator {}, which is not defined", docs_[doc].file, comm));
      info.communicator = CommunicatorOf(doc, comm);
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
    if (any.numeric_id >= 0 && any.message_category) message_of_flow_id_[{doc, any.numeric_id}] = id;
    return OkStatus();
  }

  // Every other flow arrow is a dependency edge between the events its ends bound to. Arrows
  // pointing back in time are dropped and counted (kept, with program order they could close a
  // cycle no analysis can order).
  void AddFlowDependencies() {
    for (const std::vector<uint32_t>& channel : channels_) {
      const Flow* from = nullptr;
      for (uint32_t i : channel) {
        const Flow& f = flows_[i];
        if (f.message_category || f.event == kNoEvent) continue;
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

  void AddDependency(const Flow& from, const Flow& to) {
    const LocationId a = tracks_[from.track].location, b = tracks_[to.track].location;
    if (a == b && from.event == to.event) return;  // both ends on one event: no order to keep
    if (to.event_time < from.event_time || (a == b && to.event < from.event)) {
      ++flows_back_in_time_;
      return;
    }
    builder_.AddDependency(FlowDependencyKind(from.cat), a, from.event, b, to.event);
  }

  Status AddCollectives() {
    for (auto& [key, args] : collective_args_) {
      const uint32_t doc = key.first;
      CollectiveOp op = CollectiveOp::kOther;
      const std::string_view op_name = args != nullptr ? StringField(*args, "op") : "";
      for (int k = 0; k <= static_cast<int>(CollectiveOp::kOther); ++k)
        if (CollectiveOpName(static_cast<CollectiveOp>(k)) == op_name) op = static_cast<CollectiveOp>(k);
      const int64_t comm = IntField(args, "communicator", -1);
      const CommunicatorId communicator = CommunicatorOf(doc, comm);
      const LocationId root = LocationOf(args != nullptr ? Field(*args, "root") : nullptr, doc);
      collective_ids_.emplace(key, builder_.AddCollective(op, communicator, root));
    }
    return OkStatus();
  }

  void BuildTrack(Track& track);
  void ReportDiagnostics();

  std::vector<chrome::Document> docs_;
  uint32_t doc_ = 0;  // the document being read
  std::string_view file_;
  TraceBuilder builder_;
  TimeNs origin_ = 0;  // the time zero of the document being read
  static constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::max();
  TimeNs earliest_ = kNoTime;  // of the document's events read, for a file that names no time zero
  std::vector<Track> tracks_;
  std::map<std::pair<TrackPart, TrackPart>, uint32_t> track_index_;
  std::map<TrackPart, Process> processes_;
  std::map<std::pair<std::string, std::string>, RegionId> regions_;
  std::map<std::tuple<TrackPart, std::string, std::string>, std::vector<std::pair<uint32_t, TimeNs>>> open_async_;
  std::vector<AsyncSlice> async_;
  TimeNs async_end_ = 0;
  std::vector<Flow> flows_;
  // Flow channels are (cat, id), in order of first appearance; flow_keys_[i] is flow i's.
  ChannelIds<std::string> flow_channels_;
  std::vector<uint32_t> flow_keys_;
  std::vector<std::vector<uint32_t>> channels_;  // per channel, its flows in time order (GroupFlowChannels)
  // Keyed by (document, the writer's id): ids are a file's own.
  std::map<std::pair<uint32_t, int64_t>, MessageId> message_of_flow_id_;
  std::map<std::pair<uint32_t, int64_t>, const json*> collective_args_;
  std::map<std::pair<uint32_t, int64_t>, CollectiveId> collective_ids_;
  size_t builder_communicators_ = 0;
  std::vector<size_t> comm_base_;  // per document, the builder id of its first communicator; then the total
  SkipCounter invalid_, skipped_;
  uint64_t unpaired_flows_ = 0, flows_back_in_time_ = 0, receives_without_send_ = 0, sends_without_receive_ = 0,
           truncated_ = 0, unclosed_ = 0, stray_ = 0;
};

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
    emitted(builder_.Leave(loc, at, RegionId(open.back().region)), at);
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
        open.push_back(OpenSlice{item.arg, end, false, e, t});
        emitted(e, t);
        break;
      }
      case ItemKind::kBegin: {
        const EventIndex e = builder_.Enter(loc, t, RegionId(item.arg));
        open.push_back(OpenSlice{item.arg, t, true, e, t});
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
        auto m = message_of_flow_id_.find({track.pid.doc, item.arg});
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
        auto c = collective_ids_.find({track.pid.doc, item.arg});
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
  d.AddCount("skipped_records", skipped_.total(), skipped_.Example());
  d.AddCount("invalid_records", invalid_.total(), invalid_.Example());
  d.AddCount("receives_without_send", receives_without_send_, fmt::format("{}: a flow event has no partner", file_));
  d.AddCount("sends_without_receive", sends_without_receive_, fmt::format("{}: a flow event has no partner", file_));
  d.AddCount("unpaired_flows", unpaired_flows_,
             fmt::format("{}: a flow event without a partner and without a 'peer' argument was dropped", file_));
  d.AddCount("flows_back_in_time", flows_back_in_time_,
             fmt::format("{}: a flow arrow whose end is stamped before its start was not kept as a dependency", file_));
  d.AddCount("truncated_slices", truncated_,
             fmt::format("{}: a slice that outlives its enclosing slice was cut at its end", file_));
  d.AddCount("unclosed_slices", unclosed_,
             fmt::format("{}: a \"B\" or \"b\" event without its end was closed at the track's last event", file_));
  d.AddCount("stray_events", stray_,
             fmt::format("{}: an \"E\" or \"e\" without its begin, or a request/collective event naming nothing", file_));
}

}  // namespace

Result<Trace> ReadChromeJson(std::string_view content, std::string_view file_name, const ReadOptions&) {
  std::vector<chrome::Document> docs(1);
  GS_ASSIGN_OR_RETURN(docs[0].json, chrome::ParseKeepingDecimals(content, file_name));
  docs[0].file = std::string(file_name);
  return ChromeParser(std::move(docs), file_name).Run({});
}

Result<Trace> chrome::ReadDocuments(std::vector<Document> docs, std::string_view source, const DocumentNotes& notes) {
  return ChromeParser(std::move(docs), source).Run(notes);
}

bool LooksLikeChromeJson(std::string_view head) {
  const size_t p = head.find_first_not_of(" \t\r\n");
  return p != std::string_view::npos && (head[p] == '{' || head[p] == '[');
}

namespace {
Sniff SniffChromeJson(const TraceProbe& probe) { return LooksLikeChromeJson(probe.head) ? Sniff::kSure : Sniff::kNo; }
}  // namespace

constinit const Importer kChromeImporter{kChromeFormat, SniffChromeJson, nullptr, ReadChromeJson, {}, "Chrome JSON"};

}  // namespace grainscope
