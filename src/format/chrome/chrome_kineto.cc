// Kineto's (the PyTorch profiler's) dialect of Chrome JSON: what its categories and args say about
// GPU work, handed to the model's GpuTracker (model/gpu_tracker.h), which derives the edges.
//  * "cuda_runtime" / "cuda_driver" slices (HIP's calls too) with args.correlation: runtime calls;
//  * "kernel", "gpu_memcpy", "gpu_memset" slices with args.correlation, device, stream: GPU work;
//  * "cuda_sync" slices: what a synchronisation call (same correlation id) waited for; they are
//    the call seen from the GPU, not work, so they become edges and no slice;
//  * the "ac2g" flows repeat the correlation ids: not needed where the work carries them;
//  * NCCL / RCCL kernels are each rank's member of a collective operation (NcclKernel); a rank
//    directory's merge makes one instance of the members of all ranks (model/trace_parts.h);
//  * the tracks of pid "Spans", "Traces" and "" are the profiler's own (its window, "PyTorch
//    Profiler (0)", "Record Window End"), not the program's: left out.
#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>

#include "format/chrome/chrome_parser.h"
#include "model/region_roles.h"

namespace grainscope::chrome {
namespace {

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

// The operation an NCCL kernel performs, from Kineto's "Collective name" ("allreduce",
// "_allgather_base", "all_to_all") or the kernel's name ("ncclKernel_AllReduce_RING_LL_Sum_float",
// "ncclDevKernel_ReduceScatter_Sum_f32_RING_LL"). Send/receive kernels carry the point-to-point
// steps of an all-to-all or a pipeline: kOther, which the model treats as all-to-all.
CollectiveOp NcclOp(std::string_view collective_name, std::string_view kernel) {
  std::string key;
  std::string_view text = collective_name;
  if (text.empty()) {
    const size_t p = kernel.find('_');
    text = p == std::string_view::npos ? kernel : kernel.substr(p + 1);
  }
  for (char c : text) {
    if (c == '(' || (collective_name.empty() && c == '_' && !key.empty())) break;  // "AllReduce_RING_LL..."
    if (std::isalpha(static_cast<unsigned char>(c))) key += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  static const std::map<std::string, CollectiveOp, std::less<>> kOps = {
      {"allreduce", CollectiveOp::kAllreduce}, {"broadcast", CollectiveOp::kBroadcast},
      {"reduce", CollectiveOp::kReduce},       {"allgather", CollectiveOp::kAllgather},
      {"allgatherbase", CollectiveOp::kAllgather}, {"reducescatter", CollectiveOp::kReduceScatter},
      {"reducescatterbase", CollectiveOp::kReduceScatter}, {"alltoall", CollectiveOp::kAlltoall},
      {"alltoallbase", CollectiveOp::kAlltoall}, {"gather", CollectiveOp::kGather},
      {"scatter", CollectiveOp::kScatter},     {"barrier", CollectiveOp::kBarrier}};
  auto it = kOps.find(key);
  return it == kOps.end() ? CollectiveOp::kOther : it->second;
}

// Bytes per element of Kineto's "dtype" ("Float", "BFloat16", "Long", ...), or 0 when unknown.
uint64_t ElementBytes(std::string_view dtype) {
  if (dtype == "Float" || dtype == "Int") return 4;
  if (dtype == "Double" || dtype == "Long" || dtype == "ComplexFloat") return 8;
  if (dtype == "Half" || dtype == "BFloat16" || dtype == "Short") return 2;
  if (dtype == "Byte" || dtype == "Char" || dtype == "Bool" || dtype.starts_with("Float8")) return 1;
  return 0;
}

}  // namespace

// A record that is no item: a profiler span, or a cuda_sync record (its edges). True when consumed.
bool ChromeParser::ReadKinetoRecord(const JsonEvent& ev, std::string_view cat) {
  if (IsProfilerPid(ev.pid)) {
    ++profiler_spans_;
    return true;
  }
  const JsonArgs& args = ev.args;
  if (cat != "cuda_sync" || !args.present) return false;
  const std::optional<int64_t> correlation = args.OptionalInt("correlation");
  if (!correlation) return false;
  GpuSyncRecord r;
  r.kind = SyncKindOf(args.String("cuda_sync_kind"));
  r.device = args.Int("device", -1);
  r.stream = StreamNumber(args.Int("stream", -1));
  r.wait_on_stream = StreamNumber(args.Int("wait_on_stream", -1));
  r.record_correlation = args.Int("wait_on_cuda_event_record_corr_id", -1);
  gpu_.AddSyncRecord(*correlation, r);
  ++gpu_sync_records_;
  return true;
}

// A slice's GPU part, if it has one: a runtime call or work with a correlation id.
void ChromeParser::ReadGpuSlice(std::string_view name, std::string_view cat, const JsonArgs& args, uint32_t t,
                                Item* item) {
  const Track& track = tracks_[t];
  const std::optional<int64_t> correlation = args.OptionalInt("correlation");
  if (!correlation) return;
  GpuRef ref{false, false, GpuCall::kOther, *correlation, -1, -1};
  if (IsGpuActivity(cat)) {
    ref.work = true;
    ref.pageable = cat == "gpu_memcpy" && name.find("Pageable") != std::string_view::npos;
    correlated_work_ = true;
    ref.device = args.Int("device", track.pid.named ? -1 : track.pid.number);
    ref.stream = StreamNumber(args.Int("stream", track.tid.named ? -1 : track.tid.number));
    const std::optional<CallRole> role = KnownCallRole(name);
    if (role && role->role == RegionRole::kCommCollective) ReadNcclKernel(name, args, t, item->time, &ref);
  } else if (IsRuntimeCall(cat)) {
    ref.call = GpuCallOf(name);
  } else {
    return;
  }
  item->gpu = static_cast<uint32_t>(gpu_refs_.size());
  gpu_refs_.push_back(ref);
}

void ChromeParser::ReadNcclKernel(std::string_view name, const JsonArgs& args, uint32_t track, TimeNs begin, GpuRef* ref) {
  const std::string_view group = args.String("Process Group Name");
  const std::string_view collective = args.String("Collective name");
  NcclKernel k;
  k.key = group.empty() ? fmt::format("stream {}", ref->stream) : fmt::format("process group {}", group);
  k.sequence = group.empty() ? -1 : args.Int("Seq", args.Int("seq", -1));
  k.sequence_known = k.sequence >= 0;
  k.op = NcclOp(collective, name);
  const int64_t elements = args.Int("In msg nelems", 0);
  k.bytes = elements > 0 ? static_cast<uint64_t>(elements) * ElementBytes(args.String("dtype")) : 0;
  k.track = track;
  k.begin = begin;
  ReadNcclPeer(args, collective, group, &k);
  ref->nccl = static_cast<uint32_t>(nccl_.size());
  nccl_.push_back(std::move(k));
}

// A "send" or "recv" kernel that names its peer (PyTorch 2.4 and later: "Dst Rank" / "Src Rank",
// global ranks) in a file that names its own rank: `k` becomes a message end. Otherwise it stays
// a collective member (all-to-all over its group), as older traces' send/recv kernels do.
void ChromeParser::ReadNcclPeer(const JsonArgs& args, std::string_view collective, std::string_view group,
                                NcclKernel* k) const {
  const bool send = collective == "send";
  if (!send && collective != "recv") return;
  const JsonValue* v = args.Find(send ? "Dst Rank" : "Src Rank");
  std::optional<int64_t> peer = v != nullptr ? v->Int() : std::nullopt;
  if (v != nullptr && !peer && v->is_string()) peer = JsonValue{JsonValue::kInteger, v->text}.Int();
  if (!peer || *peer < 0 || own_rank_ < 0) return;
  k->p2p = send ? NcclKernel::P2p::kSend : NcclKernel::P2p::kReceive;
  const int64_t from = send ? own_rank_ : *peer, to = send ? *peer : own_rank_;
  k->key = fmt::format("{}{} {}->{}", kNcclP2pChannel, group.empty() ? "-" : group, from, to);
}

// One collective row per NCCL kernel but the p2p ones (AddNcclMessages), on a communicator per key whose members are the streams
// that ran the key's kernels; a kernel without a sequence number takes its order among the key's
// kernels of this file (one rank) by start time.
void ChromeParser::AddNcclCollectives() {
  std::map<std::string, std::vector<uint32_t>> by_key;
  for (uint32_t i = 0; i < nccl_.size(); ++i)
    if (nccl_[i].p2p == NcclKernel::P2p::kNone) by_key[nccl_[i].key].push_back(i);
  for (auto& [key, kernels] : by_key) {
    std::stable_sort(kernels.begin(), kernels.end(), [&](uint32_t a, uint32_t b) { return nccl_[a].begin < nccl_[b].begin; });
    std::vector<LocationId> members;
    for (uint32_t i : kernels) members.push_back(tracks_[nccl_[i].track].location);
    std::sort(members.begin(), members.end());
    members.erase(std::unique(members.begin(), members.end()), members.end());
    const CommunicatorId comm = builder_.AddCommunicator(fmt::format("NCCL {}", key), std::move(members));
    int64_t order = 0;
    for (uint32_t i : kernels) {
      NcclKernel& k = nccl_[i];
      if (k.sequence < 0) k.sequence = order;
      ++order;
      k.collective = builder_.AddCollective(k.op, comm, LocationId());
    }
  }
}

// Each p2p kernel is one end of a message whose other end is in the peer's file: a row with that
// side missing, which a rank directory's merge pairs with the peer's per channel, in order
// (model/trace_parts.h); a single file reports it unmatched.
void ChromeParser::AddNcclMessages() {
  for (NcclKernel& k : nccl_) {
    if (k.p2p == NcclKernel::P2p::kNone) continue;
    MessageInfo info;
    const LocationId here = tracks_[k.track].location;
    (k.p2p == NcclKernel::P2p::kSend ? info.sender : info.receiver) = here;
    info.name = k.key;
    info.bytes = k.bytes;
    k.message = builder_.AddMessage(info);
    if (k.p2p == NcclKernel::P2p::kSend) {
      unmatched_.NoReceive([&] { return fmt::format("{}: {} (an NCCL send kernel): its receiver's file is not read", file_, k.key); });
    } else {
      unmatched_.NoSend([&] { return fmt::format("{}: {} (an NCCL recv kernel): its sender's file is not read", file_, k.key); });
    }
  }
}

std::vector<PartCollective> ChromeParser::PartCollectives() const {
  size_t rows = collective_ids_.size();
  for (const NcclKernel& k : nccl_) rows += k.collective.valid() ? 1 : 0;
  std::vector<PartCollective> out(rows);
  for (const NcclKernel& k : nccl_)
    if (k.collective.valid()) out[k.collective.value] = PartCollective{k.key, static_cast<uint32_t>(k.sequence), -1, k.sequence_known};
  return out;
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
