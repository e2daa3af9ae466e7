// GPU work and the host calls that enqueue and await it: the happens-before edges between host
// threads and GPU streams, derived once for every reader that sees them (Kineto's JSON today,
// Nsight Systems' export next). A reader only parses: it tells the tracker each runtime call with
// its correlation id, each kernel / copy / memset on a stream with its own, and, where its format
// says, what a synchronisation waited for; AddEdges then adds to the trace
//   * launch edges (kGpuLaunch): a call's Enter -> the Enter of each piece of work of its
//     correlation id (CUDA and HIP alike; the Enter, because work often starts before the launching
//     call returns, never before it began);
//   * sync edges (kGpuSync):
//       stream synchronise:  the last work its stream had enqueued when the call began -> its Leave
//       device synchronise:  the same, for every stream of the device
//       event synchronise:   the last work the event's stream had enqueued when the event was
//                            recorded -> the call's Leave
//       stream wait event:   that work -> the Enter of the first work the waiting stream was given
//                            after the call
//       blocking copy:       its copy's Leave -> the call's Leave (cudaMemcpy, hipMemcpyWithStream;
//                            and an async copy from or to pageable host memory where the call
//                            returned after it: the host waited for it all the same)
// Stream order needs no edge: a stream is a location, and its program order is its work's order.
// "Enqueued" is when the launching call began (work whose launch is not in the trace: its start).
// Where the trace does not say which stream or event a call waited for (HIP traces carry no sync
// records), the calling thread's last launched stream (or its device) is taken, and counted
// (gpu_sync_guessed).
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/ids.h"
#include "model/timeline.h"

namespace grainscope {

class TraceBuilder;

// What a runtime call does to the GPU, by its CUDA or HIP name.
enum class GpuCall : uint8_t {
  kOther,            // a query, an allocation, ...: no edge
  kLaunch,           // enqueues work (kernel launch, async copy or memset)
  kBlockingCopy,     // a copy that returns once done (cudaMemcpy, hipMemcpy, hipMemcpyWithStream)
  kStreamSync,       // cudaStreamSynchronize, hipStreamSynchronize
  kDeviceSync,       // cudaDeviceSynchronize, cuCtxSynchronize, hipDeviceSynchronize
  kEventSync,        // cudaEventSynchronize, hipEventSynchronize
  kEventRecord,      // cudaEventRecord, hipEventRecord
  kStreamWaitEvent,  // cudaStreamWaitEvent, hipStreamWaitEvent
};
GpuCall GpuCallOf(std::string_view name);

// What a synchronisation waited for, where the format records it (Kineto's "cuda_sync" events,
// Nsight's synchronisation table). -1: not said.
struct GpuSyncRecord {
  GpuCall kind = GpuCall::kOther;   // kStreamSync, kDeviceSync, kEventSync or kStreamWaitEvent
  int64_t device = -1;
  int64_t stream = -1;              // the stream synchronised, or the waiting one (kStreamWaitEvent)
  int64_t wait_on_stream = -1;      // the stream the event was recorded on
  int64_t record_correlation = -1;  // the event record's correlation id
};

class GpuTracker {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;

  // A runtime call on a host thread (its kind: GpuCallOf its name), and a piece of work on stream
  // `stream` of `device` (as the format numbers them) held by location `stream_location`. Their
  // events are set once appended.
  uint32_t AddCall(LocationId thread, GpuCall kind, int64_t correlation);
  // `pageable`: a copy from or to pageable host memory, which the launching call may wait for.
  uint32_t AddWork(LocationId stream_location, int64_t device, int64_t stream, int64_t correlation,
                   bool pageable = false);
  void SetCallEnter(uint32_t row, EventIndex e, TimeNs t) { calls_[row].enter = {e, t}; }
  void SetCallLeave(uint32_t row, EventIndex e, TimeNs t) { calls_[row].leave = {e, t}; }
  void SetWorkEnter(uint32_t row, EventIndex e, TimeNs t) { work_[row].enter = {e, t}; }
  void SetWorkLeave(uint32_t row, EventIndex e, TimeNs t) { work_[row].leave = {e, t}; }
  // What the call of `correlation` waited for.
  void AddSyncRecord(int64_t correlation, const GpuSyncRecord& record);
  size_t sync_record_count() const { return sync_.size(); }
  bool empty() const { return calls_.empty() && work_.empty(); }

  // Adds the edges (header comment) and counts what could not be joined; `file` names the trace
  // in the counts' examples. Rows whose events were never set are ignored. Each stream that a
  // host thread launched work on joins that thread's process (Location::group): a rank's streams
  // are its own, wherever the format files them (Kineto: under a process per device).
  void AddEdges(TraceBuilder& builder, std::string_view file);

 private:
  struct End {
    EventIndex event = kNoEvent;
    TimeNs time = 0;
  };
  struct Call {
    LocationId thread;
    GpuCall kind;
    int64_t correlation;
    End enter, leave;
  };
  struct Work {
    LocationId location;
    int64_t device, stream, correlation;
    bool pageable;
    End enter, leave;
    TimeNs enqueued = 0;
  };
  struct Sync {
    int64_t correlation;
    GpuSyncRecord record;
  };
  class Edges;  // the derivation (gpu_tracker.cc)

  std::vector<Call> calls_;
  std::vector<Work> work_;
  std::vector<Sync> sync_;
};

}  // namespace grainscope
