// PMPI wrappers (C bindings) for point-to-point calls and the wait/test families.
//
// A blocking send records its message at the call's begin; a blocking receive at its end, with
// source, tag and size from the status (so MPI_ANY_SOURCE / MPI_ANY_TAG receives are recorded as
// what they received). Isend records the send at once; Irecv remembers the request, and the
// Wait/Test call that completes it records the receive.
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

}  // namespace

extern "C" {

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
