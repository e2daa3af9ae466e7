#include "format/nsight/nsight_reader.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "format/format_names.h"
#include "format/nsight/nsight_db.h"
#include "model/gpu_tracker.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using nsight::Database;
using nsight::Row;

// Nsight's serialized global thread id: the process id in bits 24..47, the thread id below.
int64_t PidOf(int64_t global_tid) { return (global_tid >> 24) & 0xFFFFFF; }
int64_t TidOf(int64_t global_tid) { return global_tid & 0xFFFFFF; }

// A correlation id within its process: CUPTI numbers them per process, and one export can hold
// several (nsys profile mpirun ...).
int64_t ProcessCorrelation(int64_t pid, int64_t correlation) {
  return correlation < 0 ? -1 : static_cast<int64_t>((static_cast<uint64_t>(pid) << 32) | (static_cast<uint64_t>(correlation) & 0xFFFFFFFFu));
}

// A device within its process, for the GPU tracker, which matches synchronisations to streams by
// (device, stream): two processes' stream 13 of device 0 are two streams.
int64_t ProcessDevice(int64_t pid, int64_t device) {
  return static_cast<int64_t>((static_cast<uint64_t>(pid) << 16) | (static_cast<uint64_t>(device) & 0xFFFFu));
}

// A runtime call's name without Nsight's API-version suffix ("cudaMalloc_v3020" -> "cudaMalloc").
std::string_view Unversioned(std::string_view name) {
  const size_t v = name.rfind("_v");
  if (v == std::string_view::npos || name.size() - v < 6) return name;
  for (size_t i = v + 2; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, v);
}

// CUPTI's copy kinds, as Nsight names them.
std::string CopyName(int64_t kind) {
  static constexpr std::string_view kKinds[] = {"", "HtoD", "DtoH", "HtoA", "AtoH", "AtoA", "AtoD", "DtoA", "DtoD", "HtoH", "PtoP"};
  if (kind > 0 && kind < static_cast<int64_t>(std::size(kKinds))) return fmt::format("Memcpy {}", kKinds[kind]);
  return "Memcpy";
}

// What a span on a lane is to the GPU tracker.
struct GpuPart {
  bool work = false;  // a kernel, copy or memset (else a runtime call)
  bool pageable = false;
  GpuCall call = GpuCall::kOther;
  int64_t correlation = -1, device = -1, stream = -1;
};

struct Span {
  TimeNs start, end;
  RegionId region;
  std::optional<GpuPart> gpu;
};

struct Mark {
  TimeNs time;
  StringId label;
};

// A host thread's or a GPU stream's spans and marks, until its location's events are appended.
struct Lane {
  std::vector<Span> spans;
  std::vector<Mark> marks;
};

// The tables read, and those that only name things: neither is counted as skipped.
bool IsReadOrNaming(const std::string& table) {
  static const std::vector<std::string_view> kTables = {
      "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
      "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "OSRT_API", "StringIds",
      "ThreadNames", "PROCESSES", "ProcessStreams", "EXPORT_META_DATA", "ANALYSIS_DETAILS", "CUDA_CALLCHAINS",
      "OSRT_CALLCHAINS", "UnwindMethodType", "sqlite_sequence", "sqlite_stat1"};
  return std::find(kTables.begin(), kTables.end(), table) != kTables.end() || table.starts_with("ENUM_") ||
         table.starts_with("TARGET_INFO_") || table.starts_with("META_DATA_");
}

class NsightReader {
 public:
  NsightReader(const std::string& path, const ReadOptions& options) : path_(path), b_(std::string(kNsightFormat)) {
    b_.SetRepairNesting(!options.strict);
  }

  Result<Trace> Read() {
    GS_ASSIGN_OR_RETURN(Database db, Database::Open(path_));
    if (!db.Has("CUPTI_ACTIVITY_KIND_RUNTIME") && !db.Has("CUPTI_ACTIVITY_KIND_KERNEL") && !db.Has("NVTX_EVENTS") &&
        !db.Has("OSRT_API")) {
      return DataLoss(fmt::format("{}: an SQLite database without the tables of an Nsight Systems export "
                                  "(CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_KERNEL, NVTX_EVENTS, OSRT_API)", path_));
    }
    GS_RETURN_IF_ERROR(ReadNames(db));
    GS_RETURN_IF_ERROR(ReadRuntimeCalls(db, "CUPTI_ACTIVITY_KIND_RUNTIME", true));
    GS_RETURN_IF_ERROR(ReadRuntimeCalls(db, "OSRT_API", false));
    GS_RETURN_IF_ERROR(ReadNvtx(db));
    GS_RETURN_IF_ERROR(ReadGpuWork(db));
    GS_RETURN_IF_ERROR(ReadSyncRecords(db));
    CountSkippedTables(db);
    AppendLanes();
    gpu_.AddEdges(b_, path_);
    return b_.Finish();
  }

 private:
  Status ReadNames(const Database& db) {
    // Only tables are read (Database::Has lists no views): a view can compute rows without end.
    if (db.Has("StringIds"))
      GS_RETURN_IF_ERROR(db.ForEach("SELECT id, value FROM StringIds", [&](const Row& r) { strings_[r.Int(0)] = r.Text(1); }));
    if (!db.Has("ThreadNames")) return OkStatus();
    return db.ForEach("SELECT globalTid, nameId FROM ThreadNames",
                      [&](const Row& r) { thread_names_[r.Int(0)] = String(r.Int(1)); });
  }

  std::string String(int64_t id) const {
    const auto it = strings_.find(id);
    return it == strings_.end() ? fmt::format("string {}", id) : it->second;
  }

  // The region of the string `id` (a runtime call's name without its version suffix, a kernel's
  // name) in role `role`: looked up by number, the name formed once.
  RegionId RegionOfString(int64_t id, RegionRole role) {
    auto [it, inserted] = string_regions_.try_emplace({id, role}, RegionId());
    if (inserted) {
      const std::string name = String(id);
      it->second = Region(Unversioned(name), role);
      call_kinds_.try_emplace(it->second.value, GpuCallOf(Unversioned(name)));
    }
    return it->second;
  }

  RegionId Region(std::string_view name, RegionRole role) {
    auto [it, inserted] = regions_.try_emplace(fmt::format("{}\x1f{}", static_cast<int>(role), name), RegionId());
    if (inserted) it->second = b_.AddRegion(name, role, static_cast<int64_t>(regions_.size() - 1));
    return it->second;
  }

  Lane& Thread(int64_t global_tid) {
    auto& [lane, id] = threads_[{PidOf(global_tid), TidOf(global_tid)}];
    id = global_tid;
    return lane;
  }

  // CUDA (`cuda`) or OS runtime calls: a region per call on its thread; a CUDA call the GPU
  // tracker also sees. A call recorded twice (its name and a versioned one, one correlation id)
  // is kept once, the outer record.
  Status ReadRuntimeCalls(const Database& db, std::string_view table, bool cuda) {
    if (!db.Has(table)) return OkStatus();
    struct Call {
      int64_t start, end, tid, correlation, name;
    };
    std::vector<Call> calls;
    GS_RETURN_IF_ERROR(db.ForEach(fmt::format("SELECT start, end, globalTid, {}, nameId FROM {}", cuda ? "correlationId" : "-1", table),
                                  [&](const Row& r) { calls.push_back({r.Int(0), r.Int(1), r.Int(2), r.Int(3), r.Int(4)}); }));
    std::sort(calls.begin(), calls.end(), [](const Call& a, const Call& x) {
      return std::tie(a.tid, a.correlation, a.start, x.end) < std::tie(x.tid, x.correlation, x.start, a.end);
    });
    uint64_t twice = 0;
    std::string first_twice;
    for (size_t i = 0; i < calls.size(); ++i) {
      const Call& c = calls[i];
      const RegionId region = RegionOfString(c.name, RegionRole::kFunction);
      if (i > 0 && c.correlation > 0 && calls[i - 1].tid == c.tid && calls[i - 1].correlation == c.correlation &&
          RegionOfString(calls[i - 1].name, RegionRole::kFunction) == region) {
        if (twice++ == 0)
          first_twice = fmt::format("{} (correlation id {}) is the same call as {}", String(c.name), c.correlation, String(calls[i - 1].name));
        continue;
      }
      if (c.end < c.start || c.start < 0) {
        NoteInvalid(table, "a call ending before it begins");
        continue;
      }
      Span s{c.start, c.end, region, std::nullopt};
      if (cuda) s.gpu = GpuPart{.call = CallKind(region), .correlation = ProcessCorrelation(PidOf(c.tid), c.correlation)};
      Thread(c.tid).spans.push_back(s);
    }
    if (twice > 0) b_.diagnostics().AddCount(Diag::kIgnoredAttributes, twice, first_twice);
    return OkStatus();
  }

  // NVTX push/pop ranges (59) as regions (they nest on their thread by construction); start/end
  // ranges (60), which may overlap and end on another thread, as a marker at each end; marks
  // (34) as markers; the rest (domain and thread naming, categories) names nothing shown.
  Status ReadNvtx(const Database& db) {
    if (!db.Has("NVTX_EVENTS")) return OkStatus();
    return db.ForEach("SELECT start, end, eventType, text, textId, globalTid, endGlobalTid FROM NVTX_EVENTS", [&](const Row& r) {
      const int64_t type = r.Int(2), start = r.Int(0), end = r.Int(1);
      if (type != 59 && type != 60 && type != 34) return;
      const std::string name = r.IsNull(3) ? (r.IsNull(4) ? "(unnamed range)" : String(r.Int(4))) : std::string(r.Text(3));
      if (start < 0 || (type != 34 && (r.IsNull(1) || end < start))) return NoteInvalid("NVTX_EVENTS", "a range without its end");
      if (type == 59) {
        Thread(r.Int(5)).spans.push_back({start, end, Region(name, RegionRole::kFunction), std::nullopt});
      } else if (type == 60) {
        Thread(r.Int(5)).marks.push_back({start, b_.Intern(name + " (range start)")});
        Thread(r.IsNull(6) ? r.Int(5) : r.Int(6)).marks.push_back({end, b_.Intern(name + " (range end)")});
      } else {
        Thread(r.Int(5)).marks.push_back({start, b_.Intern(name)});
      }
    });
  }

  // A runtime call's kind, found once per region (RegionOfString).
  GpuCall CallKind(RegionId region) const {
    const auto it = call_kinds_.find(region.value);
    return it == call_kinds_.end() ? GpuCall::kOther : it->second;
  }

  Lane& Stream(int64_t pid, int64_t device, int64_t stream) { return streams_[{pid, device, stream}]; }

  Status ReadGpuWork(const Database& db) {
    // Columns: start, end, deviceId, streamId, correlationId, globalPid, then the table's own.
    auto add = [&](const Row& r, RegionId region, bool pageable) {
      if (r.Int(1) < r.Int(0) || r.Int(0) < 0) return NoteInvalid("GPU activity", "work ending before it begins");
      const int64_t device = r.Int(2), stream = r.Int(3), pid = PidOf(r.Int(5, 0));
      Stream(pid, device, stream).spans.push_back(
          {r.Int(0), r.Int(1), region,
           GpuPart{true, pageable, GpuCall::kOther, ProcessCorrelation(pid, r.Int(4)), ProcessDevice(pid, device), stream}});
    };
    if (db.Has("CUPTI_ACTIVITY_KIND_KERNEL")) {
      GS_RETURN_IF_ERROR(db.ForEach("SELECT start, end, deviceId, streamId, correlationId, globalPid, shortName FROM CUPTI_ACTIVITY_KIND_KERNEL",
                                    [&](const Row& r) { add(r, RegionOfString(r.Int(6), RegionRole::kGpuKernel), false); }));
    }
    if (db.Has("CUPTI_ACTIVITY_KIND_MEMCPY")) {
      // Memory kind 0 is pageable host memory (Nsight's ENUM_CUDA_MEM_KIND).
      GS_RETURN_IF_ERROR(db.ForEach(
          "SELECT start, end, deviceId, streamId, correlationId, globalPid, copyKind, srcKind, dstKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
          [&](const Row& r) { add(r, Region(CopyName(r.Int(6)), RegionRole::kGpuMemcpy), r.Int(7) == 0 || r.Int(8) == 0); }));
    }
    if (db.Has("CUPTI_ACTIVITY_KIND_MEMSET")) {
      GS_RETURN_IF_ERROR(db.ForEach("SELECT start, end, deviceId, streamId, correlationId, globalPid FROM CUPTI_ACTIVITY_KIND_MEMSET",
                                    [&](const Row& r) { add(r, Region("Memset", RegionRole::kGpuMemset), false); }));
    }
    return OkStatus();
  }

  // What each synchronisation waited for (CUPTI's synchronisation types 1-4).
  Status ReadSyncRecords(const Database& db) {
    if (!db.Has("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION")) return OkStatus();
    return db.ForEach("SELECT correlationId, syncType, deviceId, streamId, globalPid FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                      [&](const Row& r) {
                        static constexpr GpuCall kKinds[] = {GpuCall::kOther, GpuCall::kEventSync, GpuCall::kStreamWaitEvent,
                                                             GpuCall::kStreamSync, GpuCall::kDeviceSync};
                        const int64_t type = r.Int(1);
                        GpuSyncRecord s;
                        s.kind = type >= 0 && type < 5 ? kKinds[type] : GpuCall::kOther;
                        s.device = ProcessDevice(PidOf(r.Int(4, 0)), r.Int(2));
                        s.stream = r.Int(3);
                        gpu_.AddSyncRecord(ProcessCorrelation(PidOf(r.Int(4, 0)), r.Int(0)), s);
                      });
  }

  void CountSkippedTables(const Database& db) {
    std::vector<std::string> names(db.tables().begin(), db.tables().end());
    std::sort(names.begin(), names.end());
    uint64_t rows = 0;
    std::string list;
    for (const std::string& t : names) {
      if (IsReadOrNaming(t)) continue;
      const int64_t n = db.Count(t);
      if (n <= 0) continue;
      rows += static_cast<uint64_t>(n);
      list += fmt::format("{}{} {}", list.empty() ? "" : ", ", t, n);
    }
    if (rows > 0) b_.diagnostics().AddCount(Diag::kSkippedRecords, rows, fmt::format("{}: tables {}", path_, list));
  }

  void NoteInvalid(std::string_view table, std::string_view why) {
    if (invalid_++ == 0) first_invalid_ = fmt::format("{}: {} in {}", path_, why, table);
  }

  void AppendLanes();
  void AppendLane(LocationId loc, Lane& lane);

  std::string path_;
  TraceBuilder b_;
  GpuTracker gpu_;
  std::unordered_map<int64_t, std::string> strings_;
  std::unordered_map<int64_t, std::string> thread_names_;
  std::unordered_map<std::string, RegionId> regions_;
  std::map<std::pair<int64_t, RegionRole>, RegionId> string_regions_;
  std::unordered_map<uint32_t, GpuCall> call_kinds_;
  std::map<std::pair<int64_t, int64_t>, std::pair<Lane, int64_t>> threads_;  // (pid, tid) -> lane, global id
  std::map<std::tuple<int64_t, int64_t, int64_t>, Lane> streams_;            // (pid, device, stream)
  uint64_t invalid_ = 0;
  std::string first_invalid_;
};

// Threads in (process, thread) order, each process's first thread its group, then streams.
void NsightReader::AppendLanes() {
  std::map<int64_t, LocationId> process_of;
  for (auto& [key, lane] : threads_) {
    const auto [pid, tid] = key;
    const auto name = thread_names_.find(lane.second);
    const std::string label = name != thread_names_.end() ? fmt::format("{} (pid {}, tid {})", name->second, pid, tid)
                                                           : fmt::format("pid {} tid {}", pid, tid);
    const LocationId loc = b_.AddLocation(label, LocationKind::kThread, tid);
    b_.SetLocationGroup(loc, process_of.try_emplace(pid, loc).first->second.value);
    AppendLane(loc, lane.first);
  }
  const bool processes = !streams_.empty() && std::get<0>(streams_.begin()->first) != std::get<0>(streams_.rbegin()->first);
  for (auto& [key, lane] : streams_) {
    const auto [pid, device, stream] = key;
    const std::string name = processes ? fmt::format("GPU {} stream {} (pid {})", device, stream, pid) : fmt::format("GPU {} stream {}", device, stream);
    AppendLane(b_.AddLocation(name, LocationKind::kGpuStream, stream), lane);
  }
  b_.diagnostics().AddCount(Diag::kInvalidRecords, invalid_, first_invalid_);
}

// A lane's spans as Enter/Leave pairs and its marks, in time order: at one time, leaves of spans
// begun earlier first (the later begun first), then enters (the longer first), then marks, then
// the leaves of spans of no length.
void NsightReader::AppendLane(LocationId loc, Lane& lane) {
  struct Ev {
    TimeNs time;
    int order;
    int64_t tie, tie2;
    uint32_t item;
    uint8_t what;  // 0 enter, 1 leave, 2 mark
  };
  std::vector<Ev> evs;
  evs.reserve(lane.spans.size() * 2 + lane.marks.size());
  for (uint32_t i = 0; i < lane.spans.size(); ++i) {
    const Span& s = lane.spans[i];
    evs.push_back({s.start, 1, -s.end, i, i, 0});
    evs.push_back({s.end, s.start < s.end ? 0 : 3, -s.start, -static_cast<int64_t>(i), i, 1});
  }
  for (uint32_t i = 0; i < lane.marks.size(); ++i) evs.push_back({lane.marks[i].time, 2, 0, i, i, 2});
  std::sort(evs.begin(), evs.end(), [](const Ev& a, const Ev& x) {
    return std::tie(a.time, a.order, a.tie, a.tie2) < std::tie(x.time, x.order, x.tie, x.tie2);
  });
  std::vector<uint32_t> rows(lane.spans.size(), GpuTracker::kNone);
  for (const Ev& e : evs) {
    if (e.what == 2) {
      b_.Marker(loc, e.time, lane.marks[e.item].label);
      continue;
    }
    const Span& s = lane.spans[e.item];
    const EventIndex at = e.what == 0 ? b_.Enter(loc, e.time, s.region) : b_.Leave(loc, e.time, s.region);
    if (!s.gpu) continue;
    const GpuPart& g = *s.gpu;
    if (e.what == 0) {
      rows[e.item] = g.work ? gpu_.AddWork(loc, g.device, g.stream, g.correlation, g.pageable) : gpu_.AddCall(loc, g.call, g.correlation);
      g.work ? gpu_.SetWorkEnter(rows[e.item], at, e.time) : gpu_.SetCallEnter(rows[e.item], at, e.time);
    } else {
      g.work ? gpu_.SetWorkLeave(rows[e.item], at, e.time) : gpu_.SetCallLeave(rows[e.item], at, e.time);
    }
  }
}

Sniff SniffNsight(const TraceProbe& probe) {
  return probe.head.starts_with(std::string_view("SQLite format 3\0", 16)) ? Sniff::kSure : Sniff::kNo;
}

}  // namespace

Result<Trace> ReadNsightSqlite(const std::string& path, const ReadOptions& options) {
  return NsightReader(path, options).Read();
}

constinit const Importer kNsightImporter{kNsightFormat, SniffNsight, ReadNsightSqlite, nullptr, ".sqlite",
                                         "Nsight Systems SQLite"};

}  // namespace grainscope
