// Reader for Nsight Systems SQLite exports (`nsys export --type sqlite`; docs/formats/nsight.md).
//
// Mapping onto the Trace model, as for Kineto's traces (the shared GpuTracker derives the edges):
//   * one location per host thread that has events (kind thread, in its process: the thread ids
//     decoded from Nsight's global ids), named after ThreadNames where it has a name, and one per
//     GPU stream that ran work ("GPU 0 stream 7", kind gpu_stream);
//   * CUDA runtime calls (CUPTI_ACTIVITY_KIND_RUNTIME) and OS runtime calls (OSRT_API) are
//     regions of their thread, their role from the name (cudaLaunchKernel launches, cudaMemcpy
//     is a blocking copy, pthread_mutex_lock a thread synchronisation); a call Nsight records
//     twice, under its name and a versioned one (cudaMalloc and cudaMalloc_v3020, one correlation
//     id), is one region; NVTX push/pop and start/end ranges are regions of their text (the MPI
//     calls Nsight's MPI tracing annotates, MPI_Send, take MPI's roles), NVTX marks markers;
//   * kernels, copies and memsets (CUPTI_ACTIVITY_KIND_KERNEL, _MEMCPY, _MEMSET) are regions of
//     their stream (kernel by its short name; "Memcpy HtoD"; "Memset"), joined to the calls that
//     launched them by correlation id within their process: launch edges, and sync edges for blocking copies and, from
//     CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, stream, device and event synchronisations;
//   * every other table with rows (scheduling, CPU sampling, profiler overhead, GPU metrics, ...)
//     is counted as skipped records, by table.
// Times are Nsight's nanoseconds since the session began.
#pragma once

#include <string>

#include "base/status.h"
#include "format/importer.h"
#include "model/trace.h"

namespace grainscope {

Result<Trace> ReadNsightSqlite(const std::string& path, const ReadOptions& options = {});

extern const Importer kNsightImporter;

}  // namespace grainscope
