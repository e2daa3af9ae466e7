// Shared state of the PMPI wrapper library (libgrainscope-mpi): whether this rank records, its
// communicators (id, members as world ranks), its pending non-blocking requests, and the helpers
// every wrapper uses to write MPI events through the recording API (include/grainscope/trace.h).
//
// How MPI events are written into the rank's .gst stream (docs/recording.md, "MPI tracing"; the
// records are gst_format.h's, version 2.5):
//   * every MPI call is a region of role communication named after the call ("MPI_Send");
//   * a message is a kRecordMpiSend on the sender and a kRecordMpiRecv on the receiver, each naming
//     the communicator (its interned key), the peer's world rank, the tag and the size, so that the
//     directory reader matches the k-th send with the k-th receive of one (communicator, sender,
//     receiver, tag) (MPI's non-overtaking rule);
//   * a collective is a kRecordMpiCollective (operation, communicator, root world rank or -1, bytes
//     sent and received) right after its region's begin; the region's end ends it;
//   * a non-blocking collective (MPI_Ibarrier, ...; a started persistent one, MPIX_*_init and
//     MPI_Start) is a kRecordMpiCollective with a slot in the call that starts it and a
//     kRecordMpiCollectiveEnd of that slot in the Wait/Test call that completes it; the slot is
//     the smallest number (from 1) no other collective in flight on the rank has;
//   * every message and collective carries the on-the-fly state (record/onthefly.h: the running
//     critical-path length and the overhead delay) on a shadow duplicate of its communicator: a
//     24-byte PMPI_Send before the user's send, received after the user's receive completed (a
//     collective: one PMPI_Allgather of the members' states on the shadow, before its region
//     ends); at close, the totals are combined over all ranks (max critical path) into every
//     rank's metadata;
//   * MPI_Init (MPI_Init_thread) is a region from the wrapper's entry (read before PMPI_Init,
//     written once recording is open) to the end of the wrapper's own start-up, holding a
//     collective of operation "init" over MPI_COMM_WORLD: every rank's first events;
//   * communicators are markers "mpi.comm <id> <world ranks as ranges>", the rank and world size a
//     marker "mpi.rank <rank> <size>", the clock offsets "mpi.clock <init|finalize> <offset ns>
//     <local CLOCK_MONOTONIC ns> <best round trip ns> <measured offset ns>" (the offset is 0 for
//     ranks on rank 0's kernel: they share one CLOCK_MONOTONIC).
// Nothing here throws or aborts: a recording problem leaves the program's MPI calls untouched.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <string>

#include "grainscope/trace.h"

namespace grainscope::mpi {

// True between a successful MPI_Init (with recording enabled) and MPI_Finalize.
bool Recording();

// The communicator's recorded identity; registers communicators it has not seen (as seen by
// this rank: derived ones get their id when created through Comm_dup/Comm_split).
struct CommInfo {
  uint32_t index = 0;   // into the table
  int size = 0;
  char id[48] = {};
  // A duplicate carrying the on-the-fly piggybacks (same ranks, same tags: MPI's matching order
  // is the user messages'); MPI_COMM_NULL for communicators the wrappers did not see created.
  MPI_Comm shadow = MPI_COMM_NULL;
};
const CommInfo* LookupComm(MPI_Comm comm);
// World rank of `rank` in `comm`, or -1 (MPI_PROC_NULL, MPI_ANY_SOURCE, unknown).
int WorldRank(MPI_Comm comm, int rank);
int MyWorldRank();

// Registers a communicator just created from `parent` (collective over the parent's members).
void RegisterDerivedComm(MPI_Comm parent, MPI_Comm created);
void ForgetComm(MPI_Comm comm);

// The communicator's key ("w", "w.0.1") interned, as the MPI records name it; 0 when not recording.
uint32_t CommKey(const CommInfo& comm);

// A send of `bytes` to `dest` (a rank of `comm`): send begin and end at once, inside the
// enclosing call's region.
void RecordSend(MPI_Comm comm, int dest, int tag, uint64_t bytes);
// A completed receive with its status (source, tag and size taken from it).
void RecordRecv(MPI_Comm comm, const MPI_Status& status);
uint64_t Bytes(int count, MPI_Datatype type);

// Non-blocking requests: a receive is recorded when Wait/Test completes it.
void TrackRecvRequest(MPI_Request request, MPI_Comm comm);
// Called with the handle as it was before the completion call and the status it produced.
void CompleteRequest(MPI_Request request, const MPI_Status& status);
// Persistent requests (MPI_Send_init and friends, MPI_Recv_init): each MPI_Start of a send records
// its message; each start of a receive makes its completion recorded as an Irecv's.
void TrackPersistentSend(MPI_Request request, MPI_Comm comm, int dest, int tag, uint64_t bytes);
void TrackPersistentRecv(MPI_Request request, MPI_Comm comm, int source);
// A persistent collective (MPIX_Barrier_init and friends): each MPI_Start begins one instance.
void TrackPersistentCollective(MPI_Request request, const char* op, MPI_Comm comm, int root, uint64_t sent,
                               uint64_t received);
void StartRequest(MPI_Request request);
void ForgetRequest(MPI_Request request);  // MPI_Request_free
// Matched probes: MPI_Mprobe/MPI_Improbe remember the message's communicator for MPI_Mrecv/Imrecv.
void TrackMessage(MPI_Message message, MPI_Comm comm);
MPI_Comm TakeMessageComm(MPI_Message message);  // MPI_COMM_NULL when not tracked

// A collective's begin record (after the region's begin). The call's region end (CallRegion)
// then exchanges the on-the-fly state over the collective's members.
void RecordCollective(const char* op, MPI_Comm comm, int root, uint64_t sent, uint64_t received);
// A non-blocking collective's begin record (inside its call's region): its slot, or 0 when
// nothing was recorded. TrackCollectiveRequest then ties the slot to the request the call made;
// with MPI_REQUEST_NULL (the call failed) the collective ends at once.
uint32_t BeginNonBlockingCollective(const char* op, MPI_Comm comm, int root, uint64_t sent, uint64_t received);
void TrackCollectiveRequest(MPI_Request request, uint32_t slot);
// Ends the call's region: for a collective begun with RecordCollective, after carrying the
// members' on-the-fly state to each other.
void EndCall(gs_region* region);

// MPI_Init / MPI_Finalize work, shared by the C and Fortran bindings. `entry_monotonic_ns` is
// CLOCK_MONOTONIC at the wrapper's entry, before PMPI_Init: the MPI_Init (MPI_Init_thread) call
// is recorded as the rank's first region, from there to the end of AfterInit, so that the rank's
// timeline starts at its program's begin and the work before its first communication call counts
// (a critical path that started at the first send missed it).
int64_t MonotonicNs();
void AfterInit(int init_result, int64_t entry_monotonic_ns, bool thread_variant);
void BeforeFinalize();

// Shared by the library's own files. The smallest slot no collective in flight has
// (mpi_requests.cc); the library's eager limit as the "mpi.eager_limit" label, or ""
// (mpi_eager_limit.cc).
uint32_t TakeCollectiveSlot();
std::string EagerLimitLabel();

// Region scope of one MPI call.
class CallRegion {
 public:
  explicit CallRegion(gs_region* region) : region_(Recording() ? region : nullptr) {
    if (region_ != nullptr) gs_region_begin(region_);
  }
  ~CallRegion() {
    if (region_ != nullptr) EndCall(region_);
  }
  CallRegion(const CallRegion&) = delete;
  CallRegion& operator=(const CallRegion&) = delete;
  bool active() const { return region_ != nullptr; }

 private:
  gs_region* region_;
};

// A call that is recorded as its region only: `call(args...)` inside `region`.
template <typename Call, typename... Args>
int InRegion(gs_region* region, Call call, Args... args) {
  CallRegion scope(region);
  return call(args...);
}

}  // namespace grainscope::mpi

// One static region descriptor per wrapped MPI function.
#define GS_MPI_REGION(var, name) \
  static gs_region var = GS_REGION_INIT(name, GS_ROLE_COMMUNICATION, GS_NO_EXTERNAL_ID)
