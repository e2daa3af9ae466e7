// Fortran bindings (the `mpif.h` / `use mpi` names, gfortran's mpi_send_ convention, and the
// `use mpi_f08` names, mpi_send_f08_) of the common subset (mpi_fortran.h says how they work;
// mpi_fortran_families.cc has the other call families).
//
// Covered: init, init_thread, finalize, comm_dup, comm_split, comm_free; send, ssend, bsend, rsend,
// recv, isend, issend, irecv, sendrecv, sendrecv_replace; wait, waitall, waitany, waitsome, test,
// testall, testany, testsome; barrier, bcast, reduce, allreduce, scan, gather(v), scatter(v),
// allgather(v), alltoall(v).
#include <vector>

#include "mpi/mpi_fortran.h"

using namespace grainscope::mpi::fortran;

GS_FORTRAN(mpi_init, (FortranError ierr)) { *ierr = MPI_Init(nullptr, nullptr); }

GS_FORTRAN(mpi_init_thread, (MPI_Fint* required, MPI_Fint* provided, FortranError ierr)) {
  int p = 0;
  *ierr = MPI_Init_thread(nullptr, nullptr, *required, &p);
  *provided = p;
}

GS_FORTRAN(mpi_finalize, (FortranError ierr)) { *ierr = MPI_Finalize(); }

GS_FORTRAN(mpi_comm_dup, (MPI_Fint* comm, MPI_Fint* newcomm, FortranError ierr)) {
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_dup(Comm(comm), &c);
  if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c);
}

GS_FORTRAN(mpi_comm_split, (MPI_Fint* comm, MPI_Fint* color, MPI_Fint* key, MPI_Fint* newcomm, FortranError ierr)) {
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_split(Comm(comm), *color, *key, &c);
  if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c);
}

GS_FORTRAN(mpi_send, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                      MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Send(buf, *count, Type(type), *dest, *tag, Comm(comm));
}

GS_FORTRAN(mpi_ssend, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                       MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Ssend(buf, *count, Type(type), *dest, *tag, Comm(comm));
}

GS_FORTRAN(mpi_recv, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* source, MPI_Fint* tag,
                      MPI_Fint* comm, MPI_Fint* status, FortranError ierr)) {
  MPI_Status s;
  *ierr = MPI_Recv(buf, *count, Type(type), *source, *tag, Comm(comm), &s);
  if (*ierr == MPI_SUCCESS) StatusOut(s, status);
}

GS_FORTRAN(mpi_isend, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                       MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Isend(buf, *count, Type(type), *dest, *tag, Comm(comm), &r);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
}

GS_FORTRAN(mpi_irecv, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* source, MPI_Fint* tag,
                       MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Irecv(buf, *count, Type(type), *source, *tag, Comm(comm), &r);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
}

GS_FORTRAN(mpi_wait, (MPI_Fint* request, MPI_Fint* status, FortranError ierr)) {
  MPI_Request r = PMPI_Request_f2c(*request);
  MPI_Status s;
  *ierr = MPI_Wait(&r, &s);
  if (*ierr == MPI_SUCCESS) {
    *request = PMPI_Request_c2f(r);
    StatusOut(s, status);
  }
}

GS_FORTRAN(mpi_waitall, (MPI_Fint* count, MPI_Fint* requests, MPI_Fint* statuses, FortranError ierr)) {
  const int n = *count > 0 ? *count : 0;
  std::vector<MPI_Request> r(n);
  std::vector<MPI_Status> s(n);
  for (int i = 0; i < n; ++i) r[i] = PMPI_Request_f2c(requests[i]);
  *ierr = MPI_Waitall(n, r.data(), s.data());
  if (*ierr != MPI_SUCCESS) return;
  for (int i = 0; i < n; ++i) {
    requests[i] = PMPI_Request_c2f(r[i]);
    if (!StatusesIgnored(statuses)) PMPI_Status_c2f(&s[i], statuses + i * (sizeof(MPI_Status) / sizeof(MPI_Fint)));
  }
}

GS_FORTRAN(mpi_sendrecv, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, MPI_Fint* dest,
                          MPI_Fint* sendtag, void* recvbuf, MPI_Fint* recvcount, MPI_Fint* recvtype,
                          MPI_Fint* source, MPI_Fint* recvtag, MPI_Fint* comm, MPI_Fint* status, FortranError ierr)) {
  MPI_Status s;
  *ierr = MPI_Sendrecv(sendbuf, *sendcount, Type(sendtype), *dest, *sendtag, recvbuf, *recvcount,
                       Type(recvtype), *source, *recvtag, Comm(comm), &s);
  if (*ierr == MPI_SUCCESS) StatusOut(s, status);
}

GS_FORTRAN(mpi_barrier, (MPI_Fint* comm, FortranError ierr)) { *ierr = MPI_Barrier(Comm(comm)); }

GS_FORTRAN(mpi_bcast, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Bcast(buf, *count, Type(type), *root, Comm(comm));
}

GS_FORTRAN(mpi_reduce, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
                        MPI_Fint* root, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Reduce(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), *root, Comm(comm));
}

GS_FORTRAN(mpi_allreduce, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
                           MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Allreduce(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), Comm(comm));
}

GS_FORTRAN(mpi_bsend, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                       MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Bsend(buf, *count, Type(type), *dest, *tag, Comm(comm));
}

GS_FORTRAN(mpi_rsend, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                       MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Rsend(buf, *count, Type(type), *dest, *tag, Comm(comm));
}

GS_FORTRAN(mpi_issend, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                        MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Issend(buf, *count, Type(type), *dest, *tag, Comm(comm), &r);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
}

GS_FORTRAN(mpi_sendrecv_replace, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* sendtag,
                                  MPI_Fint* source, MPI_Fint* recvtag, MPI_Fint* comm, MPI_Fint* status,
                                  FortranError ierr)) {
  MPI_Status s;
  *ierr = MPI_Sendrecv_replace(buf, *count, Type(type), *dest, *sendtag, *source, *recvtag, Comm(comm), &s);
  if (*ierr == MPI_SUCCESS) StatusOut(s, status);
}

GS_FORTRAN(mpi_comm_free, (MPI_Fint* comm, FortranError ierr)) {
  MPI_Comm c = Comm(comm);
  *ierr = MPI_Comm_free(&c);
  if (*ierr == MPI_SUCCESS) *comm = PMPI_Comm_c2f(c);
}

// ---- wait/test families: handles converted in and out, indices 1-based, flags as logicals -----
namespace {

constexpr size_t kStatusFints = sizeof(MPI_Status) / sizeof(MPI_Fint);

// Converts `n` Fortran handles for a completion call and writes the results back.
class FortranRequests {
 public:
  FortranRequests(const MPI_Fint* count, MPI_Fint* requests)
      : n_(*count > 0 ? *count : 0), f_(requests), c_(static_cast<size_t>(n_)), s_(static_cast<size_t>(n_ > 0 ? n_ : 1)) {
    for (int i = 0; i < n_; ++i) c_[i] = PMPI_Request_f2c(f_[i]);
  }
  int n() const { return n_; }
  MPI_Request* c() { return c_.data(); }
  MPI_Status* statuses() { return s_.data(); }
  void Back(int i) { f_[i] = PMPI_Request_c2f(c_[i]); }
  void BackAll() {
    for (int i = 0; i < n_; ++i) Back(i);
  }
  // Statuses s_[0..k) into Fortran's array (unless MPI_STATUSES_IGNORE).
  void StatusesOut(int k, MPI_Fint* statuses) {
    if (StatusesIgnored(statuses)) return;
    for (int i = 0; i < k; ++i) PMPI_Status_c2f(&s_[i], statuses + i * kStatusFints);
  }

 private:
  int n_;
  MPI_Fint* f_;
  std::vector<MPI_Request> c_;
  std::vector<MPI_Status> s_;
};

// Waitsome / Testsome: the completed handles, 1-based indices and packed statuses back.
int CompleteSome(int (*call)(int, MPI_Request*, int*, int*, MPI_Status*), const MPI_Fint* incount,
                 MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices, MPI_Fint* statuses) {
  FortranRequests r(incount, requests);
  std::vector<int> idx(static_cast<size_t>(r.n() > 0 ? r.n() : 1));
  int out = 0;
  const int rc = call(r.n(), r.c(), &out, idx.data(), r.statuses());
  if (rc != MPI_SUCCESS) return rc;
  *outcount = out;
  if (out == MPI_UNDEFINED) return rc;
  r.BackAll();
  for (int k = 0; k < out; ++k) indices[k] = idx[k] + 1;
  r.StatusesOut(out, statuses);
  return rc;
}
MPI_Fint FortranIndex(int index) { return index == MPI_UNDEFINED ? MPI_UNDEFINED : index + 1; }

}  // namespace

GS_FORTRAN(mpi_test, (MPI_Fint* request, MPI_Fint* flag, MPI_Fint* status, FortranError ierr)) {
  MPI_Request r = PMPI_Request_f2c(*request);
  MPI_Status s;
  int f = 0;
  *ierr = MPI_Test(&r, &f, &s);
  if (*ierr != MPI_SUCCESS) return;
  *flag = Logical(f);
  *request = PMPI_Request_c2f(r);
  if (f) StatusOut(s, status);
}

GS_FORTRAN(mpi_testall, (MPI_Fint* count, MPI_Fint* requests, MPI_Fint* flag, MPI_Fint* statuses, FortranError ierr)) {
  FortranRequests r(count, requests);
  int f = 0;
  *ierr = MPI_Testall(r.n(), r.c(), &f, r.statuses());
  if (*ierr != MPI_SUCCESS) return;
  *flag = Logical(f);
  r.BackAll();
  if (f) r.StatusesOut(r.n(), statuses);
}

GS_FORTRAN(mpi_testany, (MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* flag, MPI_Fint* status,
                         FortranError ierr)) {
  FortranRequests r(count, requests);
  int i = MPI_UNDEFINED, f = 0;
  *ierr = MPI_Testany(r.n(), r.c(), &i, &f, r.statuses());
  if (*ierr != MPI_SUCCESS) return;
  *flag = Logical(f);
  *index = FortranIndex(i);
  if (f && i != MPI_UNDEFINED) {
    r.Back(i);
    StatusOut(r.statuses()[0], status);
  }
}

GS_FORTRAN(mpi_testsome, (MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices,
                          MPI_Fint* statuses, FortranError ierr)) {
  *ierr = CompleteSome(MPI_Testsome, incount, requests, outcount, indices, statuses);
}

GS_FORTRAN(mpi_waitany, (MPI_Fint* count, MPI_Fint* requests, MPI_Fint* index, MPI_Fint* status, FortranError ierr)) {
  FortranRequests r(count, requests);
  int i = MPI_UNDEFINED;
  *ierr = MPI_Waitany(r.n(), r.c(), &i, r.statuses());
  if (*ierr != MPI_SUCCESS) return;
  *index = FortranIndex(i);
  if (i != MPI_UNDEFINED) {
    r.Back(i);
    StatusOut(r.statuses()[0], status);
  }
}

GS_FORTRAN(mpi_waitsome, (MPI_Fint* incount, MPI_Fint* requests, MPI_Fint* outcount, MPI_Fint* indices,
                          MPI_Fint* statuses, FortranError ierr)) {
  *ierr = CompleteSome(MPI_Waitsome, incount, requests, outcount, indices, statuses);
}

// ---- collectives: counts and displacements are default-kind integers, the same as int ---------
static_assert(sizeof(MPI_Fint) == sizeof(int));

GS_FORTRAN(mpi_scan, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
                      MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Scan(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), Comm(comm));
}

GS_FORTRAN(mpi_gather, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                        MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Gather(InPlace(sendbuf), *sendcount, Type(sendtype), recvbuf, *recvcount, Type(recvtype), *root,
                     Comm(comm));
}

GS_FORTRAN(mpi_gatherv, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcounts,
                         MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Gatherv(InPlace(sendbuf), *sendcount, Type(sendtype), recvbuf, recvcounts, displs, Type(recvtype),
                      *root, Comm(comm));
}

GS_FORTRAN(mpi_scatter, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                         MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Scatter(sendbuf, *sendcount, Type(sendtype), const_cast<void*>(InPlace(recvbuf)), *recvcount,
                      Type(recvtype), *root, Comm(comm));
}

GS_FORTRAN(mpi_scatterv, (void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* displs, MPI_Fint* sendtype, void* recvbuf,
                          MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* root, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Scatterv(sendbuf, sendcounts, displs, Type(sendtype), const_cast<void*>(InPlace(recvbuf)), *recvcount,
                       Type(recvtype), *root, Comm(comm));
}

GS_FORTRAN(mpi_allgather, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                           MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Allgather(InPlace(sendbuf), *sendcount, Type(sendtype), recvbuf, *recvcount, Type(recvtype), Comm(comm));
}

GS_FORTRAN(mpi_allgatherv, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcounts, MPI_Fint* displs, MPI_Fint* recvtype, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Allgatherv(InPlace(sendbuf), *sendcount, Type(sendtype), recvbuf, recvcounts, displs, Type(recvtype),
                         Comm(comm));
}

GS_FORTRAN(mpi_alltoall, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                          MPI_Fint* recvtype, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Alltoall(InPlace(sendbuf), *sendcount, Type(sendtype), recvbuf, *recvcount, Type(recvtype), Comm(comm));
}

GS_FORTRAN(mpi_alltoallv, (void* sendbuf, MPI_Fint* sendcounts, MPI_Fint* sdispls, MPI_Fint* sendtype, void* recvbuf,
                           MPI_Fint* recvcounts, MPI_Fint* rdispls, MPI_Fint* recvtype, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Alltoallv(InPlace(sendbuf), sendcounts, sdispls, Type(sendtype), recvbuf, recvcounts, rdispls,
                        Type(recvtype), Comm(comm));
}
