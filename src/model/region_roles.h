// What a region stands for: its role. Readers set it, from what their format says and, where the
// format only names the call, from KnownCallRole; every analysis reads the role and never the
// region's name (which call is a barrier, a wait, MPI's start-up, a synchronous send, a kernel
// launch is decided here, once).
//
// The enum is the model's own: no file format's numbers (each writer and reader maps it, e.g.
// .gst's RegionRole in format/gst/gst_format.h, OTF2's region role and paradigm).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace grainscope {

enum class RegionRole : uint8_t {
  kGrain,           // a unit of computation in the seed's sense (a task-graph node)
  kFunction,        // a code region: function, loop, user region (computation)
  kPointToPoint,    // an MPI point-to-point call: send, receive, probe, persistent start
  kCollective,      // an MPI collective call that moves data (broadcast, allreduce, ...)
  kBarrier,         // a barrier: a collective that only synchronises (MPI, OpenMP, threads)
  kWait,            // a call completing non-blocking requests (MPI_Wait*, MPI_Test*)
  kOneSided,        // an MPI one-sided (RMA) call: put, get, accumulate, window synchronisation
  kMpiOther,        // any other MPI call: communicators, groups, types, queries
  kInitFinalize,    // the message library's start-up and shut-down (MPI_Init*, MPI_Finalize)
  kThreadSync,      // a thread-library synchronisation call: mutex, condition, join, semaphore
  kOpenMp,          // an OpenMP construct: parallel, loop, single, task, taskwait
  kGpuKernel,       // a kernel running on a GPU stream
  kGpuMemcpy,       // a copy on a GPU stream
  kGpuMemset,       // a memset on a GPU stream
  kGpuLaunch,       // a runtime call that enqueues GPU work (cudaLaunchKernel, cudaMemcpyAsync)
  kDeviceSync,      // a runtime call that waits for the device, a stream or an event
  kCommCollective,  // a communication library's collective (NCCL / RCCL kernels and calls)
  kIo,              // a file I/O call
  kOther,           // a region the format marks as something else
};
inline constexpr int kRegionRoleCount = 19;
std::span<const RegionRole> AllRegionRoles();

std::string_view RegionRoleName(RegionRole role);  // "point_to_point", "kernel", ...
// The role RegionRoleName(role) names; false (and `role` untouched) for any other text.
bool ParseRegionRole(std::string_view name, RegionRole* role);

// Communication in the message-passing sense: time inside is the network's and the partners'
// (the replay's network model, the characterisation's communication steps).
inline bool IsCommunication(RegionRole r) {
  return r == RegionRole::kPointToPoint || r == RegionRole::kCollective || r == RegionRole::kBarrier ||
         r == RegionRole::kWait || r == RegionRole::kOneSided;
}
// A collective call (a barrier included): its members wait for each other.
inline bool IsCollectiveCall(RegionRole r) { return r == RegionRole::kCollective || r == RegionRole::kBarrier; }

// An MPI call of any kind.
inline bool IsMpi(RegionRole r) {
  return IsCommunication(r) || r == RegionRole::kMpiOther || r == RegionRole::kInitFinalize;
}
// An MPI call by its name (MPI_*, MPIX_*): tells MPI_Barrier from an OpenMP or thread barrier,
// which share the role barrier.
bool IsMpiName(std::string_view name);
// Work a location does itself (code, OpenMP constructs, thread-library calls, GPU work and runtime
// calls, I/O): a region that is neither a grain, an MPI call nor marked other by its format.
inline bool IsWork(RegionRole r) { return r != RegionRole::kGrain && r != RegionRole::kOther && !IsMpi(r); }

// What the name of a well-known call says about it: MPI (MPI_* and MPIX_*), OpenMP ("omp ..." as
// grainscope's OMPT tool names constructs, "!$omp ..." as Score-P does), POSIX threads and
// semaphores, CUDA and HIP runtime and driver calls, NCCL / RCCL, POSIX and C file I/O. An MPI
// call the table does not list is kMpiOther.
struct CallRole {
  RegionRole role;
  bool synchronous_send = false;  // a send that completes only once matched (MPI_Ssend, MPI_Issend)
};
std::optional<CallRole> KnownCallRole(std::string_view name);

// The role a region gets whose format declares `declared` for it, named `name`: the known call's
// role where the name is one (a format's generic role -- "function", "communication" -- says less
// than the call's name; an MPI_Wait some writers give a function role), a collective whose name
// says barrier a barrier (OpenMP's and the thread libraries' barriers carry no standard name),
// else `declared`. A grain stays a grain whatever its name; an MPI call the table does not list
// keeps a communication role its format gives it.
CallRole ResolveRegionRole(RegionRole declared, std::string_view name);

}  // namespace grainscope
