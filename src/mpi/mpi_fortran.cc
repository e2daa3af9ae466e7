// Fortran bindings (the `mpif.h` / `use mpi` names, gfortran's mpi_send_ convention) of the
// common subset. Open MPI's own Fortran routines call PMPI_* directly, bypassing the C wrappers,
// so a Fortran program is only traced through these: each converts its handles and calls the C
// wrapper (MPI_Send etc. of this library), which records and then calls PMPI.
//
// Covered: init, init_thread, finalize, comm_dup, comm_split, send, ssend, recv, isend, irecv,
// wait, waitall, sendrecv, barrier, bcast, reduce, allreduce. Other Fortran calls run untraced.
#include "mpi/mpi_state.h"

#include <vector>

// Open MPI's Fortran sentinels (common blocks in libmpi): compared by address.
extern "C" {
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
}

namespace {

const void* InPlace(const void* buf) { return buf == &mpi_fortran_in_place_ ? MPI_IN_PLACE : buf; }
bool StatusIgnored(const MPI_Fint* status) {
  return status == reinterpret_cast<const MPI_Fint*>(&mpi_fortran_status_ignore_);
}
bool StatusesIgnored(const MPI_Fint* statuses) {
  return statuses == reinterpret_cast<const MPI_Fint*>(&mpi_fortran_statuses_ignore_);
}
MPI_Comm Comm(const MPI_Fint* c) { return PMPI_Comm_f2c(*c); }
MPI_Datatype Type(const MPI_Fint* t) { return PMPI_Type_f2c(*t); }
MPI_Op Op(const MPI_Fint* o) { return PMPI_Op_f2c(*o); }

void StatusOut(const MPI_Status& c, MPI_Fint* f) {
  if (!StatusIgnored(f)) PMPI_Status_c2f(&c, f);
}

}  // namespace

// Defines mpi_<name>_ and its double-underscore alias.
#define GS_FORTRAN(name, params) \
  extern "C" void name##__ params __attribute__((alias(#name "_"))); \
  extern "C" void name##_ params

GS_FORTRAN(mpi_init, (MPI_Fint* ierr)) { *ierr = MPI_Init(nullptr, nullptr); }

GS_FORTRAN(mpi_init_thread, (MPI_Fint* required, MPI_Fint* provided, MPI_Fint* ierr)) {
  int p = 0;
  *ierr = MPI_Init_thread(nullptr, nullptr, *required, &p);
  *provided = p;
}

GS_FORTRAN(mpi_finalize, (MPI_Fint* ierr)) { *ierr = MPI_Finalize(); }

GS_FORTRAN(mpi_comm_dup, (MPI_Fint* comm, MPI_Fint* newcomm, MPI_Fint* ierr)) {
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_dup(Comm(comm), &c);
  if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c);
}

GS_FORTRAN(mpi_comm_split, (MPI_Fint* comm, MPI_Fint* color, MPI_Fint* key, MPI_Fint* newcomm, MPI_Fint* ierr)) {
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_split(Comm(comm), *color, *key, &c);
  if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c);
}

GS_FORTRAN(mpi_send, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                      MPI_Fint* comm, MPI_Fint* ierr)) {
  *ierr = MPI_Send(buf, *count, Type(type), *dest, *tag, Comm(comm));
}

GS_FORTRAN(mpi_ssend, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                       MPI_Fint* comm, MPI_Fint* ierr)) {
  *ierr = MPI_Ssend(buf, *count, Type(type), *dest, *tag, Comm(comm));
}

GS_FORTRAN(mpi_recv, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* source, MPI_Fint* tag,
                      MPI_Fint* comm, MPI_Fint* status, MPI_Fint* ierr)) {
  MPI_Status s;
  *ierr = MPI_Recv(buf, *count, Type(type), *source, *tag, Comm(comm), &s);
  if (*ierr == MPI_SUCCESS) StatusOut(s, status);
}

GS_FORTRAN(mpi_isend, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag,
                       MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Isend(buf, *count, Type(type), *dest, *tag, Comm(comm), &r);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
}

GS_FORTRAN(mpi_irecv, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* source, MPI_Fint* tag,
                       MPI_Fint* comm, MPI_Fint* request, MPI_Fint* ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Irecv(buf, *count, Type(type), *source, *tag, Comm(comm), &r);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
}

GS_FORTRAN(mpi_wait, (MPI_Fint* request, MPI_Fint* status, MPI_Fint* ierr)) {
  MPI_Request r = PMPI_Request_f2c(*request);
  MPI_Status s;
  *ierr = MPI_Wait(&r, &s);
  if (*ierr == MPI_SUCCESS) {
    *request = PMPI_Request_c2f(r);
    StatusOut(s, status);
  }
}

GS_FORTRAN(mpi_waitall, (MPI_Fint* count, MPI_Fint* requests, MPI_Fint* statuses, MPI_Fint* ierr)) {
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
                          MPI_Fint* source, MPI_Fint* recvtag, MPI_Fint* comm, MPI_Fint* status, MPI_Fint* ierr)) {
  MPI_Status s;
  *ierr = MPI_Sendrecv(sendbuf, *sendcount, Type(sendtype), *dest, *sendtag, recvbuf, *recvcount,
                       Type(recvtype), *source, *recvtag, Comm(comm), &s);
  if (*ierr == MPI_SUCCESS) StatusOut(s, status);
}

GS_FORTRAN(mpi_barrier, (MPI_Fint* comm, MPI_Fint* ierr)) { *ierr = MPI_Barrier(Comm(comm)); }

GS_FORTRAN(mpi_bcast, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr)) {
  *ierr = MPI_Bcast(buf, *count, Type(type), *root, Comm(comm));
}

GS_FORTRAN(mpi_reduce, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
                        MPI_Fint* root, MPI_Fint* comm, MPI_Fint* ierr)) {
  *ierr = MPI_Reduce(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), *root, Comm(comm));
}

GS_FORTRAN(mpi_allreduce, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
                           MPI_Fint* comm, MPI_Fint* ierr)) {
  *ierr = MPI_Allreduce(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), Comm(comm));
}
