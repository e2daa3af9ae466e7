// The GPU side of a trace with GPU streams (PyTorch profiler, rocprofiler; Nsight Systems to
// come): per stream and per rank how busy the GPU was and with what (computation kernels, copies
// and memsets, NCCL/RCCL communication), how much of the communication overlapped computation,
// kernel time by name, and what launching the work cost the CPU. Holistic Trace Analysis's
// temporal, kernel and comm-comp-overlap breakdowns, for every rank of a job in one pass.
//
// A stream's time is its outermost work slices (a kernel inside a gpu_user_annotation counts
// once). A rank is a process (Location::group): its CPU threads and the streams it launched on.
// Its busy time is the union of its streams' work, so two streams running at once count once;
// `overlapped` is communication during which computation (a kernel or copy) ran on another of
// its streams, the part of the communication that cost no GPU time; `exposed` is the rest.
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace grainscope {

struct GpuStreamTime {
  LocationId stream;
  TimeNs compute_ns = 0;        // kernels other than communication
  TimeNs copy_ns = 0;           // memcpy and memset
  TimeNs communication_ns = 0;  // NCCL / RCCL kernels (role comm_collective)
  TimeNs busy_ns() const { return compute_ns + copy_ns + communication_ns; }
};

struct GpuRankTime {
  LocationId process;           // Location::group
  uint32_t streams = 0;
  TimeNs busy_ns = 0;           // the union of its streams' work
  TimeNs compute_ns = 0;        // the union of computation: kernels, copies, memsets
  TimeNs communication_ns = 0;  // the union of communication kernels
  TimeNs overlapped_ns = 0;     // communication while computation ran
  TimeNs idle_ns = 0;           // the trace's span less busy_ns
  uint64_t launches = 0;        // runtime calls that enqueue work (role gpu_launch) on its threads
  TimeNs launch_ns = 0;         // their time on the CPU
  TimeNs exposed_ns() const { return communication_ns - overlapped_ns; }
};

struct KernelTime {
  RegionId region;
  uint64_t count = 0;
  TimeNs total_ns = 0, max_ns = 0;
};

struct GpuTime {
  TimeNs span_ns = 0;                // the trace's
  std::vector<GpuStreamTime> streams;  // in location order
  std::vector<GpuRankTime> ranks;      // processes with a stream, in process order
  std::vector<KernelTime> kernels;     // every work region by name and role, most time first
  TimeNs work_ns = 0;                  // all streams' work: the kernels' shares are of this
  bool empty() const { return streams.empty(); }
};

// Empty when the trace has no GPU stream.
GpuTime ComputeGpuTime(const Trace& trace);

}  // namespace grainscope
