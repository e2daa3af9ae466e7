// Non-blocking, persistent and matched-probe requests of the wrapper library: what the completion
// (Wait/Test) or the start (MPI_Start) of each records, and the slots of the collectives in flight.
#include <mpi.h>

#include <mutex>
#include <unordered_map>
#include <vector>

#include "mpi/mpi_state.h"
#include "record/onthefly.h"

namespace grainscope::mpi {
namespace {

namespace rec = grainscope::record;

std::mutex g_request_mutex;
// Requests whose completion records something (under g_request_mutex): a receive, recorded with
// its communicator; a collective in flight, ended through its slot.
struct TrackedRequest {
  MPI_Comm comm = MPI_COMM_NULL;
  uint32_t coll_slot = 0;  // 0: a receive
};
std::unordered_map<MPI_Request, TrackedRequest>* g_requests = nullptr;
// Persistent requests: what MPI_Start does with each (under g_request_mutex).
struct PersistentRequest {
  enum class Kind : uint8_t { kSend, kRecv, kCollective } kind = Kind::kSend;
  MPI_Comm comm = MPI_COMM_NULL;
  int peer = MPI_PROC_NULL;  // destination of a send, source of a receive, root of a collective
  int tag = 0;
  uint64_t bytes = 0;        // sent
  uint64_t received = 0;     // a collective's
  const char* op = nullptr;  // a collective's (static text)
};
std::unordered_map<MPI_Request, PersistentRequest>* g_persistent = nullptr;
// Slots of the collectives in flight (slot s is in_use[s - 1]) (under g_request_mutex).
std::vector<bool>* g_coll_slot_in_use = nullptr;
// Messages MPI_Mprobe/MPI_Improbe matched, until MPI_Mrecv/MPI_Imrecv receives them.
std::unordered_map<MPI_Message, MPI_Comm>* g_probed = nullptr;

// Under g_request_mutex.
void TrackRequestLocked(MPI_Request request, TrackedRequest tracked) {
  if (g_requests == nullptr) g_requests = new std::unordered_map<MPI_Request, TrackedRequest>();
  (*g_requests)[request] = tracked;
}
void TrackPersistentLocked(MPI_Request request, const PersistentRequest& p) {
  if (g_persistent == nullptr) g_persistent = new std::unordered_map<MPI_Request, PersistentRequest>();
  (*g_persistent)[request] = p;
}

// The end record of the collective in `slot`, then the slot is free again.
void EndNonBlockingCollective(uint32_t slot) {
  if (Recording()) rec::MpiCollectiveEnd(slot);
  std::lock_guard<std::mutex> lock(g_request_mutex);
  (*g_coll_slot_in_use)[slot - 1] = false;
}

}  // namespace

// The smallest slot no collective in flight has.
uint32_t TakeCollectiveSlot() {
  std::lock_guard<std::mutex> lock(g_request_mutex);
  if (g_coll_slot_in_use == nullptr) g_coll_slot_in_use = new std::vector<bool>();
  std::vector<bool>& in_use = *g_coll_slot_in_use;
  size_t s = 0;
  while (s < in_use.size() && in_use[s]) ++s;
  if (s == in_use.size()) in_use.push_back(false);
  in_use[s] = true;
  return static_cast<uint32_t>(s + 1);
}

void TrackRecvRequest(MPI_Request request, MPI_Comm comm) {
  if (!Recording() || request == MPI_REQUEST_NULL) return;
  std::lock_guard<std::mutex> lock(g_request_mutex);
  TrackRequestLocked(request, TrackedRequest{comm, 0});
}

void TrackCollectiveRequest(MPI_Request request, uint32_t slot) {
  if (slot == 0) return;
  if (request == MPI_REQUEST_NULL) {
    EndNonBlockingCollective(slot);
    return;
  }
  std::lock_guard<std::mutex> lock(g_request_mutex);
  TrackRequestLocked(request, TrackedRequest{MPI_COMM_NULL, slot});
}

void TrackPersistentSend(MPI_Request request, MPI_Comm comm, int dest, int tag, uint64_t bytes) {
  if (!Recording() || request == MPI_REQUEST_NULL) return;
  std::lock_guard<std::mutex> lock(g_request_mutex);
  TrackPersistentLocked(request, PersistentRequest{PersistentRequest::Kind::kSend, comm, dest, tag, bytes});
}

void TrackPersistentRecv(MPI_Request request, MPI_Comm comm, int source) {
  if (!Recording() || request == MPI_REQUEST_NULL || source == MPI_PROC_NULL) return;
  std::lock_guard<std::mutex> lock(g_request_mutex);
  TrackPersistentLocked(request, PersistentRequest{PersistentRequest::Kind::kRecv, comm, source});
}

void TrackPersistentCollective(MPI_Request request, const char* op, MPI_Comm comm, int root, uint64_t sent,
                               uint64_t received) {
  if (!Recording() || request == MPI_REQUEST_NULL) return;
  std::lock_guard<std::mutex> lock(g_request_mutex);
  TrackPersistentLocked(request,
                        PersistentRequest{PersistentRequest::Kind::kCollective, comm, root, 0, sent, received, op});
}

void StartRequest(MPI_Request request) {
  if (!Recording() || request == MPI_REQUEST_NULL) return;
  PersistentRequest p;
  {
    std::lock_guard<std::mutex> lock(g_request_mutex);
    if (g_persistent == nullptr) return;
    auto it = g_persistent->find(request);
    if (it == g_persistent->end()) return;  // not ours
    p = it->second;
  }
  switch (p.kind) {
    case PersistentRequest::Kind::kSend:
      RecordSend(p.comm, p.peer, p.tag, p.bytes);
      break;
    case PersistentRequest::Kind::kRecv:
      TrackRecvRequest(request, p.comm);  // recorded when a Wait/Test completes it, as an Irecv
      break;
    case PersistentRequest::Kind::kCollective:
      TrackCollectiveRequest(request, BeginNonBlockingCollective(p.op, p.comm, p.peer, p.bytes, p.received));
      break;
  }
}

void ForgetRequest(MPI_Request request) {
  std::lock_guard<std::mutex> lock(g_request_mutex);
  if (g_persistent != nullptr) g_persistent->erase(request);
  if (g_requests == nullptr) return;
  auto it = g_requests->find(request);
  if (it == g_requests->end()) return;
  // A collective freed in flight never shows its end: its slot stays taken (its begin has no end
  // in the trace, which the reader reports).
  g_requests->erase(it);
}

void TrackMessage(MPI_Message message, MPI_Comm comm) {
  if (!Recording() || message == MPI_MESSAGE_NULL || message == MPI_MESSAGE_NO_PROC) return;
  std::lock_guard<std::mutex> lock(g_request_mutex);
  if (g_probed == nullptr) g_probed = new std::unordered_map<MPI_Message, MPI_Comm>();
  (*g_probed)[message] = comm;
}

MPI_Comm TakeMessageComm(MPI_Message message) {
  std::lock_guard<std::mutex> lock(g_request_mutex);
  if (g_probed == nullptr) return MPI_COMM_NULL;
  auto it = g_probed->find(message);
  if (it == g_probed->end()) return MPI_COMM_NULL;
  const MPI_Comm comm = it->second;
  g_probed->erase(it);
  return comm;
}

void CompleteRequest(MPI_Request request, const MPI_Status& status) {
  if (request == MPI_REQUEST_NULL) return;
  TrackedRequest tracked;
  {
    std::lock_guard<std::mutex> lock(g_request_mutex);
    if (g_requests == nullptr) return;
    auto it = g_requests->find(request);
    if (it == g_requests->end()) return;  // a send, or not ours
    tracked = it->second;
    g_requests->erase(it);
  }
  if (tracked.coll_slot != 0) {
    EndNonBlockingCollective(tracked.coll_slot);
    return;
  }
  int cancelled = 0;
  PMPI_Test_cancelled(&status, &cancelled);
  if (!cancelled) RecordRecv(tracked.comm, status);
}

}  // namespace grainscope::mpi
