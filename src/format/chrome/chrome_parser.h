// The Chrome reader's parser, internal to format/chrome: a document's events read into tracks,
// flows and async slices (chrome_reader.cc), then laid out as the trace's locations, messages,
// collectives, dependency edges and each track's Enter/Leave order (chrome_tracks.cc). A rank
// directory's files are each read so, as parts of one trace (chrome_rank_dir.cc).
#pragma once

#include <cstdint>
#include <deque>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/status.h"
#include "format/chrome/chrome_documents.h"
#include "format/chrome/chrome_json.h"
#include "format/format_names.h"
#include "model/gpu_tracker.h"
#include "model/message_matcher.h"
#include "model/trace_builder.h"
#include "model/trace_parts.h"

namespace grainscope::chrome {

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
  uint32_t gpu = UINT32_MAX;   // slices of GPU runtime calls and GPU work: their GpuRef
};

// A slice that is a GPU runtime call or a piece of GPU work (Kineto's correlation ids), handed to
// the GpuTracker once its track's location exists (chrome_kineto.cc).
struct GpuRef {
  bool work;        // work on a stream, else a runtime call
  bool pageable;    // a copy from or to pageable host memory
  GpuCall call;     // a call's kind
  int64_t correlation, device, stream;
  uint32_t nccl = UINT32_MAX;  // an NCCL / RCCL kernel: its NcclKernel
};

// An NCCL or RCCL kernel: this rank's member of one collective operation of the job. Operations
// are matched across ranks by (key, sequence): the process group (else the stream) and the
// kernel's sequence number where Kineto records one, else by time (chrome_nccl_match.h).
struct NcclKernel {
  // A point-to-point kernel (PyTorch's "send"/"recv" with "Dst Rank"/"Src Rank", the peer's
  // global rank) is one end of a message instead, on channel `key` ("NCCL p2p <group> 0->1"):
  // the send at the kernel's start, the receive at its end.
  enum class P2p : uint8_t { kNone, kSend, kReceive };
  P2p p2p = P2p::kNone;
  MessageId message;
  std::string key;       // "process group 0", or "stream 84" when the kernel names no group
  int64_t sequence;      // Kineto's "Seq", or -1: its order among the key's kernels on this rank
  bool sequence_known;   // a "Seq" the trace gives (else a rank directory matches by time)
  CollectiveOp op;
  uint64_t bytes;        // "In msg nelems" x the element size, or 0
  uint32_t track;
  TimeNs begin;
  CollectiveId collective;
};

// A "pid" or "tid": an integer, or a name (Kineto's "Spans", "GPU 0"; rocprofiler quotes its
// integers, "3", which read as the integer).
struct TrackPart {
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
  std::string_view cat;     // ChromeParser::Category's
  const json* args;         // message flows: their arguments (ChromeParser::KeepArgs), else null
  int64_t numeric_id;       // the "id" when it is an integer, else -1
  bool message_category;    // written by grainscope as a message
  bool dropped = false;     // a launch flow whose launch the correlation ids give (kLaunchFlowsReplaced)
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
  uint32_t gpu_row;  // the GpuTracker row of a GPU call or work, else GpuTracker::kNone
  bool gpu_work;
  uint32_t nccl;     // an NCCL kernel's NcclKernel, else UINT32_MAX: its collective ends before the Leave
};

// An async slice ("b" ... "e" of one (pid, cat, id)), laid on a lane of its process.
struct AsyncSlice {
  TrackPart pid;
  TimeNs begin, end;
  uint32_t region;
};

inline const json* Field(const json& obj, std::string_view key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  return it == obj.end() ? nullptr : &*it;
}

inline std::string_view StringField(const json& obj, std::string_view key) {
  const json* f = Field(obj, key);
  return f != nullptr && f->is_string() ? std::string_view(f->get_ref<const std::string&>()) : std::string_view();
}

inline int64_t IntField(const json* obj, std::string_view key, int64_t fallback) {
  const json* f = obj != nullptr ? Field(*obj, key) : nullptr;
  return f != nullptr && f->is_number_integer() ? f->get<int64_t>() : fallback;
}

inline std::optional<int64_t> OptionalInt(const json* obj, std::string_view key) {
  const json* f = obj != nullptr ? Field(*obj, key) : nullptr;
  if (f == nullptr || !f->is_number_integer()) return std::nullopt;
  return f->get<int64_t>();
}

// Kineto's own tracks, not the program's: pid "Spans" (the profiler's window, "PyTorch Profiler
// (0)"), "Traces" (its iteration marks) and "" (its "Record Window End" mark). Looked at on the
// field itself, without making a TrackPart of it: every event asks.
inline bool IsProfilerPid(const JsonValue& pid) {
  return pid.is_string() && (pid.text.empty() || pid.text == "Spans" || pid.text == "Traces");
}

// Slice categories Kineto gives only the work of a GPU stream.
inline bool IsGpuWork(std::string_view cat) {
  return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset" || cat == "gpu_user_annotation";
}

// Flow categories with a meaning in the dependency model; any other flow is kOther.
// Flows an analysis drew over a trace it read (Holistic Trace Analysis's critical path: "an arrow
// between consecutive events of the path"): its answer, not the program's order, so no edge.
inline bool IsAnnotationFlow(std::string_view cat) { return cat == "critical_path"; }

inline DependencyKind FlowDependencyKind(std::string_view cat) {
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
  explicit ChromeParser(chrome::Document doc) : doc_(std::move(doc)), file_(doc_.file), builder_(std::string(kChromeFormat)) {}

  Result<Trace> Run();
  // Per region of the trace Run made, its category: regions are (name, category).
  std::vector<std::string> RegionCategories() const;
  // Per collective row of the trace Run made, what it is in the job (an NCCL kernel's process
  // group and sequence number; grainscope's own collectives: an empty key).
  std::vector<PartCollective> PartCollectives() const;

 private:
  // Reading the documents (chrome_reader.cc).
  Result<TimeNs> ReadDocument();
  Status ReadEvents();
  static std::optional<TrackPart> PartOf(const json* id);
  static std::optional<TrackPart> PartOf(const JsonValue& id);
  std::optional<uint32_t> TrackOf(const JsonEvent& ev, std::string* why);
  std::optional<uint32_t> TrackOfParts(const JsonEvent& ev, std::string* why);
  uint32_t TrackFor(const TrackPart& pid, const TrackPart& tid);
  std::optional<TimeNs> Micros(const JsonValue& v, std::string_view key, bool required, std::string* why);
  RegionId RegionFor(std::string_view name, std::string_view cat);
  std::string_view Category(std::string_view cat);
  const json* KeepArgs(const JsonArgs& args);
  bool ReadFlow(const JsonEvent& ev, char ph, std::string_view cat, uint32_t t, size_t index, Item* item);
  void ReadMetadata(const JsonEvent& ev, size_t index);
  void Skip(std::string_view ph, size_t index);
  void Invalid(std::string why, size_t index);
  void ReadEvent(const JsonEvent& ev, size_t index);
  void ReadAsync(const JsonEvent& ev, bool begin, TimeNs t, std::string_view cat, size_t index);
  // Kineto's dialect (chrome_kineto.cc).
  bool ReadKinetoRecord(const JsonEvent& ev, std::string_view cat);
  void ReadGpuSlice(std::string_view name, std::string_view cat, const JsonArgs& args, uint32_t track, Item* item);
  void DropReplacedLaunchFlows();
  uint32_t StartGpuRow(uint32_t gpu, LocationId loc, EventIndex e, TimeNs t, bool* work);
  void ReadNcclKernel(std::string_view name, const JsonArgs& args, uint32_t track, TimeNs begin, GpuRef* ref);
  void AddNcclCollectives();
  void AddNcclMessages();
  void ReadNcclPeer(const JsonArgs& args, std::string_view collective, std::string_view group, NcclKernel* k) const;
  uint32_t NcclOf(const Item& item) const { return item.gpu == UINT32_MAX ? UINT32_MAX : gpu_refs_[item.gpu].nccl; }

  // Assembling the trace (chrome_tracks.cc).
  void LayAsyncSlices();
  void SortTracks();
  void AddLocations();
  LocationId LocationOf(const json* ref);
  CommunicatorId CommunicatorOf(int64_t comm) const;
  Status AddCommunicators(const json* comms);
  void GroupFlowChannels();
  Status AddMessages();
  Status AddMessage(Flow* s, Flow* f);
  void AddFlowDependencies();
  void AddDependency(const Flow& from, const Flow& to);
  Status AddCollectives();
  void BuildTrack(Track& track);
  void StartNccl(LocationId loc, TimeNs t, const NcclKernel& k);
  void ReportDiagnostics();

  chrome::Document doc_;
  std::string_view file_;  // in messages
  TraceBuilder builder_;
  TimeNs origin_ = 0;  // the document's time zero
  static constexpr TimeNs kNoTime = std::numeric_limits<TimeNs>::max();
  TimeNs earliest_ = kNoTime;  // of the events read, for a file that names no time zero
  std::vector<Track> tracks_;
  std::map<std::pair<TrackPart, TrackPart>, uint32_t> track_index_;
  // The (pid, tid) of the last event with a track, as the file spells them (TrackOf's cache).
  struct LastTrack {
    JsonValue::Kind pid_kind = JsonValue::kAbsent, tid_kind = JsonValue::kAbsent;
    std::string pid, tid;
    uint32_t track = UINT32_MAX;
    void Remember(const JsonEvent& ev, uint32_t t) {
      pid_kind = ev.pid.kind;
      tid_kind = ev.tid.kind;
      pid.assign(ev.pid.text);
      tid.assign(ev.tid.text);
      track = t;
    }
  } last_track_;
  std::string flow_key_;  // ReadFlow's buffer
  std::map<TrackPart, Process> processes_;
  std::map<std::pair<std::string, std::string>, RegionId> regions_;
  std::set<std::string, std::less<>> categories_;  // of flows: Flow::cat points here
  std::deque<json> kept_args_;  // of message and collective events: Flow::args, Item::args point here
  std::map<std::tuple<TrackPart, std::string, std::string>, std::vector<std::pair<uint32_t, TimeNs>>> open_async_;
  std::vector<AsyncSlice> async_;
  TimeNs async_end_ = 0;
  std::vector<Flow> flows_;
  // Flow channels are (cat, id), in order of first appearance; flow_keys_[i] is flow i's.
  ChannelIds<std::string> flow_channels_;
  std::vector<uint32_t> flow_keys_;
  std::vector<std::vector<uint32_t>> channels_;  // per channel, its flows in time order (GroupFlowChannels)
  // Keyed by the writer's id.
  std::map<int64_t, MessageId> message_of_flow_id_;
  std::map<int64_t, const json*> collective_args_;
  std::map<int64_t, CollectiveId> collective_ids_;
  size_t communicators_ = 0;
  std::vector<GpuRef> gpu_refs_;
  std::vector<NcclKernel> nccl_;
  int64_t own_rank_ = -1;  // distributedInfo.rank: the sending or receiving side of NCCL's p2p kernels
  bool correlated_work_ = false;  // GPU work carries correlation ids: launches join on them
  GpuTracker gpu_;
  SkipCounter invalid_, skipped_;
  UnmatchedEnds unmatched_;
  uint64_t unpaired_flows_ = 0, flows_back_in_time_ = 0, truncated_ = 0, unclosed_ = 0, stray_ = 0,
           annotation_flows_ = 0, profiler_spans_ = 0, gpu_sync_records_ = 0, launch_flows_replaced_ = 0;
  std::optional<size_t> cut_at_;  // the file ends inside the event at this byte (kFileTruncated)
};

}  // namespace grainscope::chrome
