#include "format/chrome/chrome_reader.h"

#include <algorithm>
#include <charconv>
#include <limits>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/mapped_file.h"
#include "base/progress.h"
#include "format/chrome/chrome_common.h"
#include "format/chrome/chrome_documents.h"
#include "format/chrome/chrome_json.h"
#include "format/chrome/chrome_parser.h"
#include "model/metadata_keys.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace chrome {

Result<Trace> ChromeParser::Run() {
  GS_ASSIGN_OR_RETURN(const TimeNs origin, ReadDocument());
  builder_.SetOrigin(origin);
  LayAsyncSlices();
  DropReplacedLaunchFlows();
  SortTracks();
  AddLocations();
  const json* gs = Field(doc_.layout.header, "grainscope");
  GS_RETURN_IF_ERROR(AddCommunicators(gs != nullptr ? Field(*gs, "communicators") : nullptr));
  GroupFlowChannels();
  GS_RETURN_IF_ERROR(AddMessages());
  GS_RETURN_IF_ERROR(AddCollectives());
  AddNcclCollectives();
  AddNcclMessages();
  for (Track& t : tracks_) BuildTrack(t);
  AddFlowDependencies();
  gpu_.AddEdges(builder_, file_);
  builder_.SetEagerLimitIfRecorded();  // an MPI trace grainscope wrote: its rendezvous sends
  ReportDiagnostics();
  Result<Trace> trace = builder_.Finish();
  if (!trace.ok()) return DataLoss(fmt::format("{}: {}", file_, trace.status().message()));
  return trace;
}

std::vector<std::string> ChromeParser::RegionCategories() const {
  std::vector<std::string> categories(regions_.size());
  for (const auto& [key, id] : regions_) categories[id.value] = key.second;
  return categories;
}

// Reads the document's events into tracks; returns where its time zero is (0 when it has no
// events and names none).
Result<TimeNs> ChromeParser::ReadDocument() {
  const json& doc = doc_.layout.header;
  const json* gs = Field(doc, "grainscope");
  // grainscope's writer keeps its origin. Kineto's "ts" count from "baseTimeNanoseconds", which
  // is the wall clock rounded down to a multiple of 7,889,238 s (a quarter of a year), not the
  // run's start: adding it keeps the times of one job's ranks on one clock, but as time zero it
  // would put the run weeks after zero (corpus nccl.json: 51 days), so such a file starts at
  // its earliest event like one that names no zero.
  const bool origin_given = gs != nullptr && Field(*gs, "origin_ns") != nullptr;
  origin_ = IntField(gs, "origin_ns", IntField(&doc, "baseTimeNanoseconds", 0));
  earliest_ = kNoTime;
  own_rank_ = IntField(Field(doc, "distributedInfo"), "rank", -1);
  if (const json* other = Field(doc, "otherData"); other != nullptr && other->is_object()) {
    for (auto& [key, value] : other->items())
      if (value.is_string()) builder_.AddMetadata(key, value.get_ref<const std::string&>());
  }
  GS_RETURN_IF_ERROR(ReadEvents());
  // A file that names no time zero (older Kineto traces count "ts" from the Unix epoch) starts
  // the run at its earliest event, as Perfetto and HTA show it; 1970 would be no one's time zero.
  if (origin_given) return origin_;
  return earliest_ == kNoTime ? TimeNs{0} : earliest_;
}

// Each event of the array parsed on its own (chrome_json.h), into the tracks.
Status ChromeParser::ReadEvents() {
  EventSplitter events(doc_.content, doc_.layout.events_begin, file_);
  EventParser parser;
  JsonEvent ev;
  std::string why;
  std::string_view text;
  size_t offset = 0, next_report = 0;
  for (size_t index = 0;; ++index) {
    GS_ASSIGN_OR_RETURN(const bool more, events.Next(&text, &offset));
    if (!more) break;
    if (offset >= next_report) {  // every 512 KiB
      if (doc_.report_progress) progress::Advance(offset);
      if (doc_.release) doc_.release(offset);
      next_report = offset + (size_t{512} << 10);
    }
    if (parser.Parse(text, &ev, &why)) {
      ReadEvent(ev, index);
    } else {
      Invalid(why.starts_with("not valid JSON") ? fmt::format("{} (at byte {})", why, offset) : why, index);
    }
  }
  if (doc_.layout.truncated && !doc_.layout.events_whole) cut_at_ = events.cut().value_or(doc_.content.size());
  return OkStatus();
}

namespace {
// A track part written as a string: a quoted integer reads as the integer.
TrackPart PartOfText(std::string_view s) {
  TrackPart p;
  int64_t n = 0;
  const char* end = s.data() + s.size();
  if (!s.empty() && std::from_chars(s.data(), end, n).ptr == end) {
    p.number = n;
  } else {
    p.name = std::string(s);
    p.named = true;
  }
  return p;
}
}  // namespace

// A field that names a track part: an integer, or a string (a quoted integer reads as one).
std::optional<TrackPart> ChromeParser::PartOf(const json* id) {
  if (id == nullptr) return TrackPart{};
  if (id->is_number_integer()) return TrackPart{id->get<int64_t>()};
  if (!id->is_string()) return std::nullopt;
  return PartOfText(id->get_ref<const std::string&>());
}

std::optional<TrackPart> ChromeParser::PartOf(const JsonValue& id) {
  if (!id.present()) return TrackPart{};
  if (id.kind == JsonValue::kInteger) {
    if (const std::optional<int64_t> n = id.Int()) return TrackPart{*n};
    return std::nullopt;
  }
  if (!id.is_string()) return std::nullopt;
  return PartOfText(id.text);
}

// The track of an event, or nullopt with `why` set.
std::optional<uint32_t> ChromeParser::TrackOf(const JsonEvent& ev, std::string* why) {
  // Runs of events share a thread: the last (pid, tid) spares a TrackPart and a map look-up.
  if (last_track_.track != UINT32_MAX && ev.pid.kind == last_track_.pid_kind && ev.tid.kind == last_track_.tid_kind &&
      ev.pid.text == last_track_.pid && ev.tid.text == last_track_.tid)
    return last_track_.track;
  const std::optional<uint32_t> track = TrackOfParts(ev, why);
  if (track) last_track_.Remember(ev, *track);
  return track;
}

std::optional<uint32_t> ChromeParser::TrackOfParts(const JsonEvent& ev, std::string* why) {
  const std::optional<TrackPart> pid = PartOf(ev.pid), tid = PartOf(ev.tid);
  if (!pid || !tid) {
    *why = "'pid' and 'tid' must be integers or strings";
    return std::nullopt;
  }
  return TrackFor(*pid, *tid);
}

uint32_t ChromeParser::TrackFor(const TrackPart& pid, const TrackPart& tid) {
  auto [it, added] = track_index_.emplace(std::make_pair(pid, tid), static_cast<uint32_t>(tracks_.size()));
  if (added) tracks_.push_back(Track{pid, tid});
  return it->second;
}

// A time field in microseconds: a JSON number (one with a fraction is kept as text: chrome_json.h),
// or a string holding one. Absent and optional: 0. Otherwise nullopt with `why` set.
std::optional<TimeNs> ChromeParser::Micros(const JsonValue& v, std::string_view key, bool required, std::string* why) {
  if (!v.present()) {
    if (!required) return TimeNs{0};
    *why = fmt::format("'{}' is missing", key);
    return std::nullopt;
  }
  TimeNs ns = 0;
  if (v.kind == JsonValue::kInteger || v.is_string()) {
    if (chrome::MicrosToNs(v.text, &ns)) return ns;
    // A number outside int64 nanoseconds, or not a number at all.
    if (!v.text.empty() && v.text.find_first_not_of("+-0123456789.eE") == std::string::npos) {
      *why = fmt::format("'{}' is out of range: {}", key, v.text);
      return std::nullopt;
    }
  }
  *why = fmt::format("'{}' must be a number of microseconds, got {}", key, v.Key());
  return std::nullopt;
}

RegionId ChromeParser::RegionFor(std::string_view name, std::string_view cat) {
  auto key = std::make_pair(std::string(name), std::string(cat));
  auto it = regions_.find(key);
  if (it != regions_.end()) return it->second;
  // A category that names a role (grainscope's writer's, Kineto's "kernel", "gpu_memcpy",
  // "gpu_memset") is the region's role; the builder resolves the others' by name.
  RegionRole role = RegionRole::kFunction;
  ParseRegionRole(cat, &role);
  const RegionId id = builder_.AddRegion(name, role, static_cast<int64_t>(regions_.size()));
  regions_.emplace(std::move(key), id);
  return id;
}

std::string_view ChromeParser::Category(std::string_view cat) { return *categories_.emplace(cat).first; }

const json* ChromeParser::KeepArgs(const JsonArgs& args) {
  if (!args.present) return nullptr;
  return &kept_args_.emplace_back(args.ToJson());
}

// {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"processor 1"}}; also
// process_labels and the sort indices. Other metadata names are ignored.
void ChromeParser::ReadMetadata(const JsonEvent& ev, size_t index) {
  const std::string_view what = ev.name.is_string() ? ev.name.text : std::string_view();
  const JsonArgs& args = ev.args;
  const std::optional<TrackPart> pid = PartOf(ev.pid);
  if (!pid) return Invalid("'pid' must be an integer or a string", index);
  if (what == "process_name" || what == "process_labels" || what == "process_sort_index") {
    Process& p = processes_[*pid];
    if (what == "process_name") p.name = std::string(args.String("name"));
    if (what == "process_labels") p.labels = std::string(args.String("labels"));
    if (what == "process_sort_index") p.sort_index = args.OptionalInt("sort_index");
    return;
  }
  if (what != "thread_name" && what != "thread_sort_index") return;
  if (IsProfilerPid(ev.pid)) return;  // the profiler's own (chrome_kineto.cc)
  std::string why;
  const std::optional<uint32_t> t = TrackOf(ev, &why);
  if (!t) return Invalid(why, index);
  Track& track = tracks_[*t];
  if (!args.present) return;
  if (what == "thread_sort_index") {
    track.sort_index = args.OptionalInt("sort_index");
    return;
  }
  track.name = std::string(args.String("name"));
  track.kind_given = ParseLocationKind(args.String(chrome::kKindArg), &track.kind);
  if (const std::optional<int64_t> id = args.OptionalInt(chrome::kExternalIdArg)) {
    track.has_external_id = true;
    track.external_id = *id;
  }
}

void ChromeParser::Skip(std::string_view ph, size_t index) {
  skipped_.Add(fmt::format("phase '{}' is not modelled", ph), file_, index);
}

void ChromeParser::Invalid(std::string why, size_t index) { invalid_.Add(std::move(why), file_, index); }

void ChromeParser::ReadEvent(const JsonEvent& ev, size_t index) {
  if (!ev.ph.is_string()) return Invalid("'ph' (the phase) is missing", index);
  const std::string_view ph = ev.ph.text;
  if (ph == "M") return ReadMetadata(ev, index);
  const bool known = ph == "X" || ph == "B" || ph == "E" || ph == "i" || ph == "I" || ph == "R" || ph == "s" ||
                     ph == "t" || ph == "f" || ph == "b" || ph == "e";
  if (!known) return Skip(ph, index);
  std::string why;
  const std::optional<TimeNs> ts = Micros(ev.ts, "ts", true, &why);
  if (!ts) return Invalid(why, index);
  Item item{0, ItemKind::kMarker};
  if (__builtin_add_overflow(origin_, *ts, &item.time)) return Invalid("'ts' is out of range", index);
  const std::string_view name = ev.name.is_string() ? ev.name.text : std::string_view();
  const std::string_view cat = ev.cat.is_string() ? ev.cat.text : std::string_view();
  const JsonArgs& args = ev.args;
  if (ReadKinetoRecord(ev, cat)) return;
  if (ph == "b" || ph == "e") return ReadAsync(ev, ph == "b", item.time, cat, index);
  const std::optional<uint32_t> t = TrackOf(ev, &why);
  if (!t) return Invalid(why, index);
  item.depth = args.Int(chrome::kDepthArg, -1);
  if (ph == "X" || ph == "B") {
    item.kind = ph == "X" ? ItemKind::kSlice : ItemKind::kBegin;
    item.arg = RegionFor(name, cat).value;
    if (IsGpuWork(cat)) tracks_[*t].runs_gpu_work = true;
    if (ph == "X") {
      const std::optional<TimeNs> dur = Micros(ev.dur, "dur", false, &why);
      if (!dur) return Invalid(why, index);
      if (*dur < 0) return Invalid("'dur' is negative", index);
      if (__builtin_add_overflow(item.time, *dur, &item.end)) return Invalid("'dur' is out of range", index);
      ReadGpuSlice(name, cat, args, *t, &item);
    }
  } else if (ph == "E") {
    item.kind = ItemKind::kEnd;
  } else if (ph == "s" || ph == "t" || ph == "f") {
    if (!ReadFlow(ev, ph[0], cat, *t, index, &item)) return;
  } else if (cat == chrome::kRequestCategory) {
    item.kind = name == "send_complete" ? ItemKind::kSendComplete : ItemKind::kRecvPost;
    item.arg = static_cast<uint32_t>(args.Int("message", -1));
  } else if (cat == chrome::kCollectiveCategory) {
    item.kind = name == "collective_begin" ? ItemKind::kCollBegin : ItemKind::kCollEnd;
    const int64_t id = args.Int("collective", -1);
    if (id < 0) return Invalid("collective event without an integer 'collective' argument", index);
    item.arg = static_cast<uint32_t>(id);
    item.args = KeepArgs(args);
    if (item.kind == ItemKind::kCollBegin) collective_args_.emplace(id, item.args);
  } else {
    item.arg = builder_.Intern(name).value;
  }
  tracks_[*t].items.push_back(item);
  earliest_ = std::min(earliest_, item.time);  // of the records kept: a skipped one sets no time zero
}

// A flow end ("s", "t", "f") on track t as `item`; false when it is no item (an annotation's,
// counted; an invalid one, counted by Invalid).
bool ChromeParser::ReadFlow(const JsonEvent& ev, char ph, std::string_view cat, uint32_t t, size_t index, Item* item) {
  if (IsAnnotationFlow(cat)) {
    ++annotation_flows_;
    return false;
  }
  if (!ev.id.present()) {
    Invalid("flow event without 'id'", index);
    return false;
  }
  flow_key_.assign(cat);  // (cat, id), in a kept buffer: a Kineto file has a flow per launch
  flow_key_ += '\x1f';
  ev.id.AppendKey(&flow_key_);
  item->kind = ItemKind::kFlow;
  item->arg = static_cast<uint32_t>(flows_.size());
  const bool enclosing = ph != 'f' || (ev.bp.is_string() && ev.bp.text == "e");
  const bool message = cat == chrome::kMessageCategory;
  if (!message) item->rank = enclosing ? 2 : 0;  // messages keep file order
  flows_.push_back(Flow{t, ph, enclosing, item->time, Category(cat), message ? KeepArgs(ev.args) : nullptr,
                        ev.id.Int().value_or(-1), message});
  flow_keys_.push_back(flow_channels_.Id(flow_key_));
  return true;
}

// "b"/"e" of one (pid, cat, id) nest like "B"/"E"; an "e" closes the innermost "b" of its id.
void ChromeParser::ReadAsync(const JsonEvent& ev, bool begin, TimeNs t, std::string_view cat, size_t index) {
  const JsonValue& id = ev.id.present() ? ev.id : ev.id2;
  if (!id.present()) return Invalid("async event without 'id'", index);
  const std::optional<TrackPart> pid = PartOf(ev.pid);
  if (!pid) return Invalid("'pid' must be an integer or a string", index);
  std::vector<std::pair<uint32_t, TimeNs>>& open = open_async_[std::make_tuple(*pid, std::string(cat), id.Key())];
  if (begin) {
    open.emplace_back(RegionFor(ev.name.is_string() ? ev.name.text : std::string_view(), cat).value, t);
    earliest_ = std::min(earliest_, t);
  } else if (open.empty()) {
    ++stray_;
  } else {
    async_.push_back(AsyncSlice{*pid, open.back().second, std::max(t, open.back().second), open.back().first});
    open.pop_back();
    async_end_ = std::max(async_end_, t);
  }
}

}  // namespace chrome

Result<Trace> ReadChromeJson(std::string_view content, std::string_view file_name, const ReadOptions&) {
  GS_ASSIGN_OR_RETURN(chrome::Document doc, chrome::OpenDocument(content, std::string(file_name)));
  return chrome::ReadDocument(std::move(doc));
}

// A regular file is mapped, not copied, and the pages read are handed back as the events are
// read: memory holds the model of the events, not the file (docs/formats/chrome.md).
Result<Trace> ReadChromeJsonFile(const std::string& path, const ReadOptions&) {
  MappedFile file;
  GS_RETURN_IF_ERROR(file.Open(path));
  if (file.text().empty()) return DataLoss(fmt::format("{}: the file is empty, expected a trace", path));
  GS_ASSIGN_OR_RETURN(chrome::Document doc,
                      chrome::OpenDocument(file.text(), path, [&file](size_t offset) { file.ReleaseBefore(offset); }));
  return chrome::ReadDocument(std::move(doc));
}

Result<chrome::Document> chrome::OpenDocument(std::string_view content, std::string file, ReleaseBefore release) {
  GS_ASSIGN_OR_RETURN(DocumentLayout layout, ScanDocument(content, file, release));
  return Document{content, std::move(layout), std::move(file), true, std::move(release)};
}

Result<Trace> chrome::ReadDocument(Document doc, std::vector<std::string>* region_categories,
                                   std::vector<PartCollective>* collectives) {
  chrome::ChromeParser parser(std::move(doc));
  Result<Trace> trace = parser.Run();
  if (trace.ok() && region_categories != nullptr) *region_categories = parser.RegionCategories();
  if (trace.ok() && collectives != nullptr) *collectives = parser.PartCollectives();
  return trace;
}

bool LooksLikeChromeJson(std::string_view head) {
  const size_t p = head.find_first_not_of(" \t\r\n");
  return p != std::string_view::npos && (head[p] == '{' || head[p] == '[');
}

namespace {
Sniff SniffChromeJson(const TraceProbe& probe) { return LooksLikeChromeJson(probe.head) ? Sniff::kSure : Sniff::kNo; }
}  // namespace

constinit const Importer kChromeImporter{kChromeFormat, SniffChromeJson, ReadChromeJsonFile, ReadChromeJson, {}, "Chrome JSON"};

}  // namespace grainscope
