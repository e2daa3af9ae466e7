// PMPI wrappers (C bindings) for point-to-point calls and the wait/test families.
//
// A blocking send records its message at the call's begin; a blocking receive at its end, with
// source, tag and size from the status (so MPI_ANY_SOURCE / MPI_ANY_TAG receives are recorded as
// what they received). Isend records the send at once; Irecv remembers the request, and the
// Wait/Test call that completes it records the receive. A persistent request records a message
// at each MPI_Start (a send at once, a receive when completed); a matched probe's receive
// (MPI_Mrecv, MPI_Imrecv) on the communicator the probe named.
#include <vector>

#include "mpi/mpi_state.h"

namespace gm = grainscope::mpi;

namespace {

GS_MPI_REGION(r_send, "MPI_Send");
GS_MPI_REGION(r_ssend, "MPI_Ssend");
GS_MPI_REGION(r_bsend, "MPI_Bsend");
GS_MPI_REGION(r_rsend, "MPI_Rsend");
GS_MPI_REGION(r_recv, "MPI_Recv");
GS_MPI_REGION(r_isend, "MPI_Isend");
GS_MPI_REGION(r_issend, "MPI_Issend");
GS_MPI_REGION(r_irecv, "MPI_Irecv");
GS_MPI_REGION(r_sendrecv, "MPI_Sendrecv");
GS_MPI_REGION(r_sendrecv_replace, "MPI_Sendrecv_replace");
GS_MPI_REGION(r_wait, "MPI_Wait");
GS_MPI_REGION(r_waitall, "MPI_Waitall");
GS_MPI_REGION(r_waitany, "MPI_Waitany");
GS_MPI_REGION(r_waitsome, "MPI_Waitsome");
GS_MPI_REGION(r_test, "MPI_Test");
GS_MPI_REGION(r_testall, "MPI_Testall");
GS_MPI_REGION(r_testany, "MPI_Testany");
GS_MPI_REGION(r_testsome, "MPI_Testsome");
GS_MPI_REGION(r_send_init, "MPI_Send_init");
GS_MPI_REGION(r_ssend_init, "MPI_Ssend_init");
GS_MPI_REGION(r_bsend_init, "MPI_Bsend_init");
GS_MPI_REGION(r_rsend_init, "MPI_Rsend_init");
GS_MPI_REGION(r_recv_init, "MPI_Recv_init");
GS_MPI_REGION(r_start, "MPI_Start");
GS_MPI_REGION(r_startall, "MPI_Startall");
GS_MPI_REGION(r_request_free, "MPI_Request_free");
GS_MPI_REGION(r_probe, "MPI_Probe");
GS_MPI_REGION(r_iprobe, "MPI_Iprobe");
GS_MPI_REGION(r_mprobe, "MPI_Mprobe");
GS_MPI_REGION(r_improbe, "MPI_Improbe");
GS_MPI_REGION(r_mrecv, "MPI_Mrecv");
GS_MPI_REGION(r_imrecv, "MPI_Imrecv");

// The handles and statuses of a multiple completion: the handles are copied before the call
// (MPI resets completed ones to MPI_REQUEST_NULL), statuses provided when the caller ignores them.
class Completion {
 public:
  Completion(int count, const MPI_Request* requests, MPI_Status* statuses)
      : handles_(requests, requests + (count > 0 ? count : 0)) {
    if (statuses == MPI_STATUSES_IGNORE) {
      own_.resize(handles_.size());
      statuses_ = own_.data();
    } else {
      statuses_ = statuses;
    }
  }
  MPI_Status* statuses() { return statuses_; }
  void Done(int i) { gm::CompleteRequest(handles_[i], statuses_[i]); }
  // Waitsome/Testsome pack their statuses: statuses[k] belongs to requests[indices[k]].
  void DonePacked(int k, int index) { gm::CompleteRequest(handles_[index], statuses_[k]); }

 private:
  std::vector<MPI_Request> handles_;
  std::vector<MPI_Status> own_;
  MPI_Status* statuses_;
};

int BlockingSend(gs_region* region, int (*send)(const void*, int, MPI_Datatype, int, int, MPI_Comm),
                 const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  gm::CallRegion call(region);
  if (call.active()) gm::RecordSend(comm, dest, tag, gm::Bytes(count, type));
  return send(buf, count, type, dest, tag, comm);
}

int NonBlockingSend(gs_region* region,
                    int (*send)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*),
                    const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
                    MPI_Request* request) {
  gm::CallRegion call(region);
  if (call.active()) gm::RecordSend(comm, dest, tag, gm::Bytes(count, type));
  return send(buf, count, type, dest, tag, comm, request);
}

using SendInit = int (*)(const void*, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request*);

int PersistentSend(gs_region* region, SendInit init, const void* buf, int count, MPI_Datatype type, int dest,
                   int tag, MPI_Comm comm, MPI_Request* request) {
  gm::CallRegion call(region);
  const int rc = init(buf, count, type, dest, tag, comm, request);
  if (call.active() && rc == MPI_SUCCESS) gm::TrackPersistentSend(*request, comm, dest, tag, gm::Bytes(count, type));
  return rc;
}

}  // namespace

extern "C" {

int MPI_Send_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return PersistentSend(&r_send_init, PMPI_Send_init, buf, count, type, dest, tag, comm, req);
}
int MPI_Ssend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return PersistentSend(&r_ssend_init, PMPI_Ssend_init, buf, count, type, dest, tag, comm, req);
}
int MPI_Bsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return PersistentSend(&r_bsend_init, PMPI_Bsend_init, buf, count, type, dest, tag, comm, req);
}
int MPI_Rsend_init(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return PersistentSend(&r_rsend_init, PMPI_Rsend_init, buf, count, type, dest, tag, comm, req);
}

int MPI_Recv_init(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  gm::CallRegion call(&r_recv_init);
  const int rc = PMPI_Recv_init(buf, count, type, source, tag, comm, req);
  if (call.active() && rc == MPI_SUCCESS) gm::TrackPersistentRecv(*req, comm, source);
  return rc;
}

int MPI_Start(MPI_Request* request) {
  gm::CallRegion call(&r_start);
  if (call.active()) gm::StartRequest(*request);
  return PMPI_Start(request);
}

int MPI_Startall(int count, MPI_Request requests[]) {
  gm::CallRegion call(&r_startall);
  for (int i = 0; call.active() && i < count; ++i) gm::StartRequest(requests[i]);
  return PMPI_Startall(count, requests);
}

int MPI_Request_free(MPI_Request* request) {
  gm::CallRegion call(&r_request_free);
  gm::ForgetRequest(*request);
  return PMPI_Request_free(request);
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  return gm::InRegion(&r_probe, PMPI_Probe, source, tag, comm, status);
}

int MPI_Iprobe(int source, int tag, MPI_Comm comm, int* flag, MPI_Status* status) {
  return gm::InRegion(&r_iprobe, PMPI_Iprobe, source, tag, comm, flag, status);
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  gm::CallRegion call(&r_mprobe);
  const int rc = PMPI_Mprobe(source, tag, comm, message, status);
  if (call.active() && rc == MPI_SUCCESS) gm::TrackMessage(*message, comm);
  return rc;
}

int MPI_Improbe(int source, int tag, MPI_Comm comm, int* flag, MPI_Message* message, MPI_Status* status) {
  gm::CallRegion call(&r_improbe);
  const int rc = PMPI_Improbe(source, tag, comm, flag, message, status);
  if (call.active() && rc == MPI_SUCCESS && *flag) gm::TrackMessage(*message, comm);
  return rc;
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  gm::CallRegion call(&r_mrecv);
  const MPI_Comm comm = gm::TakeMessageComm(*message);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Mrecv(buf, count, type, message, st);
  if (call.active() && rc == MPI_SUCCESS && comm != MPI_COMM_NULL) gm::RecordRecv(comm, *st);
  return rc;
}

int MPI_Imrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Request* request) {
  gm::CallRegion call(&r_imrecv);
  const MPI_Comm comm = gm::TakeMessageComm(*message);
  const int rc = PMPI_Imrecv(buf, count, type, message, request);
  if (call.active() && rc == MPI_SUCCESS && comm != MPI_COMM_NULL) gm::TrackRecvRequest(*request, comm);
  return rc;
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return BlockingSend(&r_send, PMPI_Send, buf, count, type, dest, tag, comm);
}
int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return BlockingSend(&r_ssend, PMPI_Ssend, buf, count, type, dest, tag, comm);
}
int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return BlockingSend(&r_bsend, PMPI_Bsend, buf, count, type, dest, tag, comm);
}
int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return BlockingSend(&r_rsend, PMPI_Rsend, buf, count, type, dest, tag, comm);
}

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Status* status) {
  gm::CallRegion call(&r_recv);
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
  if (call.active() && rc == MPI_SUCCESS) gm::RecordRecv(comm, *st);
  return rc;
}

int MPI_Isend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return NonBlockingSend(&r_isend, PMPI_Isend, buf, count, type, dest, tag, comm, req);
}
int MPI_Issend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm, MPI_Request* req) {
  return NonBlockingSend(&r_issend, PMPI_Issend, buf, count, type, dest, tag, comm, req);
}

int MPI_Irecv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm, MPI_Request* req) {
  gm::CallRegion call(&r_irecv);
  const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, req);
  if (call.active() && rc == MPI_SUCCESS && source != MPI_PROC_NULL) gm::TrackRecvRequest(*req, comm);
  return rc;
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  gm::CallRegion call(&r_sendrecv);
  if (call.active()) gm::RecordSend(comm, dest, sendtag, gm::Bytes(sendcount, sendtype));
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                               source, recvtag, comm, st);
  if (call.active() && rc == MPI_SUCCESS && source != MPI_PROC_NULL) gm::RecordRecv(comm, *st);
  return rc;
}

int MPI_Sendrecv_replace(void* buf, int count, MPI_Datatype type, int dest, int sendtag, int source,
                         int recvtag, MPI_Comm comm, MPI_Status* status) {
  gm::CallRegion call(&r_sendrecv_replace);
  if (call.active()) gm::RecordSend(comm, dest, sendtag, gm::Bytes(count, type));
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
  if (call.active() && rc == MPI_SUCCESS && source != MPI_PROC_NULL) gm::RecordRecv(comm, *st);
  return rc;
}

int MPI_Wait(MPI_Request* request, MPI_Status* status) {
  gm::CallRegion call(&r_wait);
  const MPI_Request handle = *request;
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Wait(request, st);
  if (call.active() && rc == MPI_SUCCESS) gm::CompleteRequest(handle, *st);
  return rc;
}

int MPI_Test(MPI_Request* request, int* flag, MPI_Status* status) {
  gm::CallRegion call(&r_test);
  const MPI_Request handle = *request;
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Test(request, flag, st);
  if (call.active() && rc == MPI_SUCCESS && *flag) gm::CompleteRequest(handle, *st);
  return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status statuses[]) {
  gm::CallRegion call(&r_waitall);
  if (!call.active()) return PMPI_Waitall(count, requests, statuses);
  Completion c(count, requests, statuses);
  const int rc = PMPI_Waitall(count, requests, c.statuses());
  if (rc == MPI_SUCCESS) {
    for (int i = 0; i < count; ++i) c.Done(i);
  }
  return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int* flag, MPI_Status statuses[]) {
  gm::CallRegion call(&r_testall);
  if (!call.active()) return PMPI_Testall(count, requests, flag, statuses);
  Completion c(count, requests, statuses);
  const int rc = PMPI_Testall(count, requests, flag, c.statuses());
  if (rc == MPI_SUCCESS && *flag) {
    for (int i = 0; i < count; ++i) c.Done(i);
  }
  return rc;
}

int MPI_Waitany(int count, MPI_Request requests[], int* index, MPI_Status* status) {
  gm::CallRegion call(&r_waitany);
  if (!call.active()) return PMPI_Waitany(count, requests, index, status);
  std::vector<MPI_Request> handles(requests, requests + (count > 0 ? count : 0));
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Waitany(count, requests, index, st);
  if (rc == MPI_SUCCESS && *index != MPI_UNDEFINED) gm::CompleteRequest(handles[*index], *st);
  return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int* index, int* flag, MPI_Status* status) {
  gm::CallRegion call(&r_testany);
  if (!call.active()) return PMPI_Testany(count, requests, index, flag, status);
  std::vector<MPI_Request> handles(requests, requests + (count > 0 ? count : 0));
  MPI_Status own;
  MPI_Status* st = status == MPI_STATUS_IGNORE ? &own : status;
  const int rc = PMPI_Testany(count, requests, index, flag, st);
  if (rc == MPI_SUCCESS && *flag && *index != MPI_UNDEFINED) gm::CompleteRequest(handles[*index], *st);
  return rc;
}

int MPI_Waitsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  gm::CallRegion call(&r_waitsome);
  if (!call.active()) return PMPI_Waitsome(incount, requests, outcount, indices, statuses);
  Completion c(incount, requests, statuses);
  const int rc = PMPI_Waitsome(incount, requests, outcount, indices, c.statuses());
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
    for (int k = 0; k < *outcount; ++k) c.DonePacked(k, indices[k]);
  }
  return rc;
}

int MPI_Testsome(int incount, MPI_Request requests[], int* outcount, int indices[], MPI_Status statuses[]) {
  gm::CallRegion call(&r_testsome);
  if (!call.active()) return PMPI_Testsome(incount, requests, outcount, indices, statuses);
  Completion c(incount, requests, statuses);
  const int rc = PMPI_Testsome(incount, requests, outcount, indices, c.statuses());
  if (rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED) {
    for (int k = 0; k < *outcount; ++k) c.DonePacked(k, indices[k]);
  }
  return rc;
}

}  // extern "C"
