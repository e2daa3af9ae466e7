#include "model/region_roles.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>

namespace grainscope {
namespace {

constexpr std::array<RegionRole, kRegionRoleCount> kAllRoles = {
    RegionRole::kGrain,      RegionRole::kFunction,      RegionRole::kPointToPoint, RegionRole::kCollective,
    RegionRole::kBarrier,    RegionRole::kWait,          RegionRole::kOneSided,     RegionRole::kMpiOther,
    RegionRole::kInitFinalize, RegionRole::kThreadSync,  RegionRole::kOpenMp,       RegionRole::kGpuKernel,
    RegionRole::kGpuMemcpy,  RegionRole::kGpuMemset,     RegionRole::kGpuLaunch,    RegionRole::kDeviceSync,
    RegionRole::kCommCollective, RegionRole::kIo,        RegionRole::kOther,
};

bool ContainsBarrier(std::string_view name) {
  constexpr std::string_view kWord = "barrier";
  for (size_t i = 0; i + kWord.size() <= name.size(); ++i) {
    size_t k = 0;
    while (k < kWord.size() && std::tolower(static_cast<unsigned char>(name[i + k])) == kWord[k]) ++k;
    if (k == kWord.size()) return true;
  }
  return false;
}

bool OneOf(std::string_view name, std::initializer_list<std::string_view> names) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

bool StartsWithAny(std::string_view name, std::initializer_list<std::string_view> prefixes) {
  return std::any_of(prefixes.begin(), prefixes.end(), [&](std::string_view p) { return name.starts_with(p); });
}

// An MPI collective's name after "MPI_": its blocking, non-blocking ("I...") and persistent
// ("..._init") forms.
bool IsMpiCollective(std::string_view call) {
  if (call.ends_with("_init")) call.remove_suffix(5);
  if (call.size() > 1 && call[0] == 'I') {  // MPI_Iallreduce: MPI_Allreduce's first letter lower-cased
    std::string blocking(call.substr(1));
    blocking[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(blocking[0])));
    if (IsMpiCollective(blocking)) return true;
  }
  return OneOf(call, {"Bcast", "Reduce", "Allreduce", "Gather", "Gatherv", "Scatter", "Scatterv", "Allgather",
                      "Allgatherv", "Alltoall", "Alltoallv", "Alltoallw", "Scan", "Exscan", "Reduce_scatter",
                      "Reduce_scatter_block", "Neighbor_allgather", "Neighbor_allgatherv", "Neighbor_alltoall",
                      "Neighbor_alltoallv", "Neighbor_alltoallw"});
}

// The role of an MPI call this table lists, or nullopt for another (a later standard's call, a
// vendor's MPIX_ extension).
std::optional<CallRole> ListedMpiCall(std::string_view name) {
  std::string_view call = name.substr(name.find('_') + 1);  // after "MPI_" or "MPIX_"
  if (call.ends_with("_c")) call.remove_suffix(2);          // MPI 4's large-count forms
  if (OneOf(call, {"Init", "Init_thread", "Finalize"})) return CallRole{RegionRole::kInitFinalize};
  if (call.starts_with("Wait") || call.starts_with("Test")) return CallRole{RegionRole::kWait};
  if (OneOf(call, {"Barrier", "Ibarrier", "Barrier_init"})) return CallRole{RegionRole::kBarrier};
  // The fence synchronises a window's whole group, as a collective does.
  if (IsMpiCollective(call) || call == "Win_fence") return CallRole{RegionRole::kCollective};
  if (OneOf(call, {"Ssend", "Issend"})) return CallRole{RegionRole::kPointToPoint, true};
  if (OneOf(call, {"Send", "Bsend", "Rsend", "Isend", "Ibsend", "Irsend", "Recv", "Irecv", "Sendrecv",
                   "Sendrecv_replace", "Isendrecv", "Isendrecv_replace", "Probe", "Iprobe", "Mprobe", "Improbe",
                   "Mrecv", "Imrecv", "Send_init", "Bsend_init", "Rsend_init", "Ssend_init", "Recv_init", "Start",
                   "Startall", "Psend_init", "Precv_init", "Pready", "Pready_range", "Pready_list", "Parrived"})) {
    return CallRole{RegionRole::kPointToPoint};
  }
  if (call.starts_with("Win_") ||
      OneOf(call, {"Put", "Rput", "Get", "Rget", "Accumulate", "Raccumulate", "Get_accumulate", "Rget_accumulate",
                   "Fetch_and_op", "Compare_and_swap"})) {
    return CallRole{RegionRole::kOneSided};
  }
  if (StartsWithAny(call, {"Comm_", "Group_", "Type_", "Info_", "Get_", "Op_", "Errhandler_", "Attr_", "Keyval_",
                           "Cart_", "Graph_", "Dist_graph_", "Intercomm_", "Request_", "File_", "T_", "Status_",
                           "Session_", "Buffer_", "Add_error", "Error_", "Pack", "Unpack"}) ||
      OneOf(call, {"Cancel", "Wtime", "Wtick", "Abort", "Initialized", "Finalized", "Query_thread", "Is_thread_main",
                   "Alloc_mem", "Free_mem", "Dims_create", "Topo_test", "Address", "Pcontrol"})) {
    return CallRole{RegionRole::kMpiOther};
  }
  return std::nullopt;
}

std::optional<CallRole> GpuCallRole(std::string_view name) {
  // NCCL's and RCCL's kernels ("ncclKernel_AllReduce_RING_LL_Sum_float", "ncclDevKernel_...") and
  // their host calls.
  if (StartsWithAny(name, {"ncclKernel", "ncclDevKernel", "rcclKernel"}) ||
      OneOf(name, {"ncclAllReduce", "ncclBroadcast", "ncclBcast", "ncclReduce", "ncclAllGather", "ncclReduceScatter",
                   "ncclAllToAll", "ncclGroupEnd"})) {
    return CallRole{RegionRole::kCommCollective};
  }
  if (OneOf(name, {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaStreamWaitEvent",
                   "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize", "cuStreamWaitEvent",
                   "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "hipStreamWaitEvent"})) {
    return CallRole{RegionRole::kDeviceSync};
  }
  if (OneOf(name, {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaLaunchCooperativeKernel", "cudaGraphLaunch",
                   "cuLaunchKernel", "cuLaunchKernelEx", "cuLaunchCooperativeKernel", "cuGraphLaunch",
                   "cudaMemcpyAsync", "cudaMemsetAsync", "cudaMemcpy2DAsync", "cuMemcpyAsync", "cuMemsetD8Async",
                   "cuMemsetD32Async", "hipLaunchKernel", "hipExtLaunchKernel", "hipModuleLaunchKernel",
                   "hipGraphLaunch", "hipMemcpyAsync", "hipMemsetAsync", "hipMemcpyWithStream"})) {
    return CallRole{RegionRole::kGpuLaunch};
  }
  return std::nullopt;
}

std::optional<CallRole> HostLibraryCallRole(std::string_view name) {
  if (StartsWithAny(name, {"omp ", "!$omp "})) return CallRole{RegionRole::kOpenMp};
  if (StartsWithAny(name, {"pthread_mutex_", "pthread_cond_", "pthread_rwlock_", "pthread_spin_", "pthread_barrier_",
                           "sem_", "omp_set_lock", "omp_unset_lock", "omp_set_nest_lock", "omp_unset_nest_lock"}) ||
      name == "pthread_join") {
    return CallRole{RegionRole::kThreadSync};
  }
  if (OneOf(name, {"open", "open64", "close", "read", "write", "pread", "pwrite", "pread64", "pwrite64", "readv",
                   "writev", "fsync", "fdatasync", "fopen", "fclose", "fread", "fwrite", "fflush", "lseek"})) {
    return CallRole{RegionRole::kIo};
  }
  return std::nullopt;
}

}  // namespace

bool IsMpiName(std::string_view name) { return name.starts_with("MPI_") || name.starts_with("MPIX_"); }

std::span<const RegionRole> AllRegionRoles() { return kAllRoles; }

std::string_view RegionRoleName(RegionRole role) {
  switch (role) {
    case RegionRole::kGrain: return "grain";
    case RegionRole::kFunction: return "function";
    case RegionRole::kPointToPoint: return "point_to_point";
    case RegionRole::kCollective: return "collective";
    case RegionRole::kBarrier: return "barrier";
    case RegionRole::kWait: return "wait";
    case RegionRole::kOneSided: return "one_sided";
    case RegionRole::kMpiOther: return "mpi_other";
    case RegionRole::kInitFinalize: return "init_finalize";
    case RegionRole::kThreadSync: return "thread_sync";
    case RegionRole::kOpenMp: return "openmp";
    // Kineto's categories for the same things (its traces read back to the same roles).
    case RegionRole::kGpuKernel: return "kernel";
    case RegionRole::kGpuMemcpy: return "gpu_memcpy";
    case RegionRole::kGpuMemset: return "gpu_memset";
    case RegionRole::kGpuLaunch: return "gpu_launch";
    case RegionRole::kDeviceSync: return "device_sync";
    case RegionRole::kCommCollective: return "comm_collective";
    case RegionRole::kIo: return "io";
    case RegionRole::kOther: return "other";
  }
  return "unknown";
}

bool ParseRegionRole(std::string_view name, RegionRole* role) {
  for (RegionRole r : kAllRoles) {
    if (RegionRoleName(r) == name) {
      *role = r;
      return true;
    }
  }
  return false;
}

std::optional<CallRole> KnownCallRole(std::string_view name) {
  if (IsMpiName(name)) return ListedMpiCall(name).value_or(CallRole{RegionRole::kMpiOther});
  if (auto gpu = GpuCallRole(name)) return gpu;
  return HostLibraryCallRole(name);
}

CallRole ResolveRegionRole(RegionRole declared, std::string_view name) {
  if (declared == RegionRole::kGrain) return {declared};
  // A format that calls a region a barrier or a collective barrier knows more than a name (an
  // OpenMP barrier Score-P marks as one: "!$omp implicit barrier").
  if (IsCollectiveCall(declared) && ContainsBarrier(name) && !IsMpiName(name)) return {RegionRole::kBarrier};
  // An MPI call the table does not list is what its format says, when that is communication.
  if (IsMpiName(name) && IsCommunication(declared) && !ListedMpiCall(name)) return {declared};
  if (std::optional<CallRole> known = KnownCallRole(name)) return *known;
  return {declared};
}

}  // namespace grainscope
