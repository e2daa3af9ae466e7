// Kineto's (the PyTorch profiler's) dialect of Chrome JSON: what its categories and args say about
// GPU work, handed to the model's GpuTracker (model/gpu_tracker.h), which derives the edges.
//  * "cuda_runtime" / "cuda_driver" slices (HIP's calls too) with args.correlation: runtime calls;
//  * "kernel", "gpu_memcpy", "gpu_memset" slices with args.correlation, device, stream: GPU work;
//  * "cuda_sync" slices: what a synchronisation call (same correlation id) waited for; they are
//    the call seen from the GPU, not work, so they become edges and no slice;
//  * the "ac2g" flows repeat the correlation ids: not needed where the work carries them;
//  * the tracks of pid "Spans" and "Traces" are the profiler's own (its window, "PyTorch Profiler
//    (0)"), not the program's: left out.
#include <string_view>

#include "format/chrome/chrome_parser.h"

namespace grainscope::chrome {
namespace {

bool IsProfilerProcess(const TrackPart& pid) { return pid.named && (pid.name == "Spans" || pid.name == "Traces"); }

bool IsRuntimeCall(std::string_view cat) { return cat.ends_with("_runtime") || cat.ends_with("_driver"); }

bool IsGpuActivity(std::string_view cat) { return cat == "kernel" || cat == "gpu_memcpy" || cat == "gpu_memset"; }

// Kineto writes CUDA's "no stream" (-1 as an unsigned 32-bit number) as 4294967295.
int64_t StreamNumber(int64_t n) { return n == 4294967295 ? -1 : n; }

GpuCall SyncKindOf(std::string_view kind) {
  if (kind == "Stream Sync") return GpuCall::kStreamSync;
  if (kind == "Context Sync") return GpuCall::kDeviceSync;
  if (kind == "Event Sync") return GpuCall::kEventSync;
  if (kind == "Stream Wait Event") return GpuCall::kStreamWaitEvent;
  return GpuCall::kOther;
}

}  // namespace

// A record that is no item: a profiler span, or a cuda_sync record (its edges). True when consumed.
bool ChromeParser::ReadKinetoRecord(const json& ev, std::string_view cat, const json* args) {
  if (const std::optional<TrackPart> pid = PartOf(Field(ev, "pid")); pid && IsProfilerProcess(*pid)) {
    ++profiler_spans_;
    return true;
  }
  if (cat != "cuda_sync" || args == nullptr) return false;
  const std::optional<int64_t> correlation = OptionalInt(args, "correlation");
  if (!correlation) return false;
  GpuSyncRecord r;
  r.kind = SyncKindOf(StringField(*args, "cuda_sync_kind"));
  r.device = IntField(args, "device", -1);
  r.stream = StreamNumber(IntField(args, "stream", -1));
  r.wait_on_stream = StreamNumber(IntField(args, "wait_on_stream", -1));
  r.record_correlation = IntField(args, "wait_on_cuda_event_record_corr_id", -1);
  gpu_.AddSyncRecord(*correlation, r);
  ++gpu_sync_records_;
  return true;
}

// A slice's GPU part, if it has one: a runtime call or work with a correlation id.
void ChromeParser::ReadGpuSlice(std::string_view name, std::string_view cat, const json* args, const Track& track,
                                Item* item) {
  const std::optional<int64_t> correlation = OptionalInt(args, "correlation");
  if (!correlation) return;
  GpuRef ref{false, false, GpuCall::kOther, *correlation, -1, -1};
  if (IsGpuActivity(cat)) {
    ref.work = true;
    ref.pageable = cat == "gpu_memcpy" && name.find("Pageable") != std::string_view::npos;
    correlated_work_ = true;
    ref.device = IntField(args, "device", track.pid.named ? -1 : track.pid.number);
    ref.stream = StreamNumber(IntField(args, "stream", track.tid.named ? -1 : track.tid.number));
  } else if (IsRuntimeCall(cat)) {
    ref.call = GpuCallOf(name);
  } else {
    return;
  }
  item->gpu = static_cast<uint32_t>(gpu_refs_.size());
  gpu_refs_.push_back(ref);
}

void ChromeParser::DropReplacedLaunchFlows() {
  if (!correlated_work_) return;
  for (Flow& f : flows_) {
    if (f.cat != "ac2g") continue;
    f.dropped = true;
    ++launch_flows_replaced_;
  }
  if (launch_flows_replaced_ == 0) return;
  for (Track& t : tracks_)
    std::erase_if(t.items, [&](const Item& i) { return i.kind == ItemKind::kFlow && flows_[i.arg].dropped; });
}

// The GpuTracker row of GpuRef `gpu`, begun at event e of `loc`.
uint32_t ChromeParser::StartGpuRow(uint32_t gpu, LocationId loc, EventIndex e, TimeNs t, bool* work) {
  if (gpu == UINT32_MAX) return GpuTracker::kNone;
  const GpuRef& ref = gpu_refs_[gpu];
  *work = ref.work;
  if (ref.work) {
    const uint32_t row = gpu_.AddWork(loc, ref.device, ref.stream, ref.correlation, ref.pageable);
    gpu_.SetWorkEnter(row, e, t);
    return row;
  }
  const uint32_t row = gpu_.AddCall(loc, ref.call, ref.correlation);
  gpu_.SetCallEnter(row, e, t);
  return row;
}

}  // namespace grainscope::chrome
