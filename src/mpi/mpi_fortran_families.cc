// Fortran bindings (mpif.h / use mpi / mpi_f08 names, see mpi_fortran.h) of the call families
// beyond the common subset in mpi_fortran.cc, so that a Fortran program's calls of them are
// recorded as a C program's are:
//   persistent requests: send_init, ssend_init, recv_init, start, startall, request_free;
//   probes: probe, iprobe;
//   collectives: exscan, reduce_scatter, reduce_scatter_block;
//   non-blocking collectives: ibarrier, ibcast, ireduce, iallreduce, iallgather, ialltoall, iscan,
//     iexscan, ireduce_scatter_block;
//   one-sided: win_create, win_free, win_fence, put, get, accumulate, win_lock, win_unlock;
//   communicators: comm_create, comm_split_type, cart_create.
// Other Fortran calls run untraced (docs/recording.md lists them).
#include <vector>

#include "mpi/mpi_fortran.h"

using namespace grainscope::mpi::fortran;

// ---- persistent requests and probes ------------------------------------------------------------

GS_FORTRAN(mpi_send_init, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag, MPI_Fint* comm,
                           MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Send_init(buf, *count, Type(type), *dest, *tag, Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_ssend_init, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* dest, MPI_Fint* tag, MPI_Fint* comm,
                            MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ssend_init(buf, *count, Type(type), *dest, *tag, Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_recv_init, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* source, MPI_Fint* tag,
                           MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Recv_init(buf, *count, Type(type), *source, *tag, Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_start, (MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = PMPI_Request_f2c(*request);
  *ierr = MPI_Start(&r);
}

GS_FORTRAN(mpi_startall, (MPI_Fint* count, MPI_Fint* requests, FortranError ierr)) {
  const int n = *count > 0 ? *count : 0;
  std::vector<MPI_Request> r(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) r[i] = PMPI_Request_f2c(requests[i]);
  *ierr = MPI_Startall(n, r.data());
}

GS_FORTRAN(mpi_request_free, (MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = PMPI_Request_f2c(*request);
  *ierr = MPI_Request_free(&r);
  if (*ierr == MPI_SUCCESS) *request = PMPI_Request_c2f(r);
}

GS_FORTRAN(mpi_probe, (MPI_Fint* source, MPI_Fint* tag, MPI_Fint* comm, MPI_Fint* status, FortranError ierr)) {
  MPI_Status s;
  *ierr = MPI_Probe(*source, *tag, Comm(comm), &s);
  if (*ierr == MPI_SUCCESS) StatusOut(s, status);
}

GS_FORTRAN(mpi_iprobe, (MPI_Fint* source, MPI_Fint* tag, MPI_Fint* comm, MPI_Fint* flag, MPI_Fint* status,
                        FortranError ierr)) {
  MPI_Status s;
  int f = 0;
  *ierr = MPI_Iprobe(*source, *tag, Comm(comm), &f, &s);
  if (*ierr != MPI_SUCCESS) return;
  *flag = Logical(f);
  if (f) StatusOut(s, status);
}

// ---- collectives ---------------------------------------------------------------------------------

GS_FORTRAN(mpi_exscan, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm,
                        FortranError ierr)) {
  *ierr = MPI_Exscan(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), Comm(comm));
}

GS_FORTRAN(mpi_reduce_scatter, (void* sendbuf, void* recvbuf, MPI_Fint* recvcounts, MPI_Fint* type, MPI_Fint* op,
                                MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Reduce_scatter(InPlace(sendbuf), recvbuf, recvcounts, Type(type), Op(op), Comm(comm));
}

GS_FORTRAN(mpi_reduce_scatter_block, (void* sendbuf, void* recvbuf, MPI_Fint* recvcount, MPI_Fint* type,
                                      MPI_Fint* op, MPI_Fint* comm, FortranError ierr)) {
  *ierr = MPI_Reduce_scatter_block(InPlace(sendbuf), recvbuf, *recvcount, Type(type), Op(op), Comm(comm));
}

// ---- non-blocking collectives: the request back to Fortran -------------------------------------

GS_FORTRAN(mpi_ibarrier, (MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ibarrier(Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_ibcast, (void* buf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* root, MPI_Fint* comm,
                        MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ibcast(buf, *count, Type(type), *root, Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_ireduce, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* root,
                         MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ireduce(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), *root, Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_iallreduce, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
                            MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Iallreduce(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_iallgather, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf,
                            MPI_Fint* recvcount, MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* request,
                            FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Iallgather(InPlace(sendbuf), *sendcount, Type(sendtype), recvbuf, *recvcount, Type(recvtype),
                         Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_ialltoall, (void* sendbuf, MPI_Fint* sendcount, MPI_Fint* sendtype, void* recvbuf, MPI_Fint* recvcount,
                           MPI_Fint* recvtype, MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ialltoall(InPlace(sendbuf), *sendcount, Type(sendtype), recvbuf, *recvcount, Type(recvtype),
                        Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_iscan, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op, MPI_Fint* comm,
                       MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Iscan(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_iexscan, (void* sendbuf, void* recvbuf, MPI_Fint* count, MPI_Fint* type, MPI_Fint* op,
                         MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Iexscan(InPlace(sendbuf), recvbuf, *count, Type(type), Op(op), Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

GS_FORTRAN(mpi_ireduce_scatter_block, (void* sendbuf, void* recvbuf, MPI_Fint* recvcount, MPI_Fint* type,
                                       MPI_Fint* op, MPI_Fint* comm, MPI_Fint* request, FortranError ierr)) {
  MPI_Request r = MPI_REQUEST_NULL;
  *ierr = MPI_Ireduce_scatter_block(InPlace(sendbuf), recvbuf, *recvcount, Type(type), Op(op), Comm(comm), &r);
  RequestOut(*ierr, r, request);
}

// ---- one-sided: sizes and displacements are INTEGER(KIND=MPI_ADDRESS_KIND), MPI_Aint ----------

GS_FORTRAN(mpi_win_create, (void* base, MPI_Aint* size, MPI_Fint* disp_unit, MPI_Fint* info, MPI_Fint* comm,
                            MPI_Fint* win, FortranError ierr)) {
  MPI_Win w = MPI_WIN_NULL;
  *ierr = MPI_Win_create(base, *size, *disp_unit, Info(info), Comm(comm), &w);
  if (*ierr == MPI_SUCCESS) *win = PMPI_Win_c2f(w);
}

GS_FORTRAN(mpi_win_free, (MPI_Fint* win, FortranError ierr)) {
  MPI_Win w = Win(win);
  *ierr = MPI_Win_free(&w);
  if (*ierr == MPI_SUCCESS) *win = PMPI_Win_c2f(w);
}

GS_FORTRAN(mpi_win_fence, (MPI_Fint* assert_, MPI_Fint* win, FortranError ierr)) {
  *ierr = MPI_Win_fence(*assert_, Win(win));
}

GS_FORTRAN(mpi_put, (void* origin, MPI_Fint* origin_count, MPI_Fint* origin_type, MPI_Fint* target,
                     MPI_Aint* target_disp, MPI_Fint* target_count, MPI_Fint* target_type, MPI_Fint* win,
                     FortranError ierr)) {
  *ierr = MPI_Put(origin, *origin_count, Type(origin_type), *target, *target_disp, *target_count, Type(target_type),
                  Win(win));
}

GS_FORTRAN(mpi_get, (void* origin, MPI_Fint* origin_count, MPI_Fint* origin_type, MPI_Fint* target,
                     MPI_Aint* target_disp, MPI_Fint* target_count, MPI_Fint* target_type, MPI_Fint* win,
                     FortranError ierr)) {
  *ierr = MPI_Get(origin, *origin_count, Type(origin_type), *target, *target_disp, *target_count, Type(target_type),
                  Win(win));
}

GS_FORTRAN(mpi_accumulate, (void* origin, MPI_Fint* origin_count, MPI_Fint* origin_type, MPI_Fint* target,
                            MPI_Aint* target_disp, MPI_Fint* target_count, MPI_Fint* target_type, MPI_Fint* op,
                            MPI_Fint* win, FortranError ierr)) {
  *ierr = MPI_Accumulate(origin, *origin_count, Type(origin_type), *target, *target_disp, *target_count,
                         Type(target_type), Op(op), Win(win));
}

GS_FORTRAN(mpi_win_lock, (MPI_Fint* lock_type, MPI_Fint* rank, MPI_Fint* assert_, MPI_Fint* win, FortranError ierr)) {
  *ierr = MPI_Win_lock(*lock_type, *rank, *assert_, Win(win));
}

GS_FORTRAN(mpi_win_unlock, (MPI_Fint* rank, MPI_Fint* win, FortranError ierr)) {
  *ierr = MPI_Win_unlock(*rank, Win(win));
}

// ---- communicators -------------------------------------------------------------------------------

GS_FORTRAN(mpi_comm_create, (MPI_Fint* comm, MPI_Fint* group, MPI_Fint* newcomm, FortranError ierr)) {
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_create(Comm(comm), PMPI_Group_f2c(*group), &c);
  if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c);
}

GS_FORTRAN(mpi_comm_split_type, (MPI_Fint* comm, MPI_Fint* split_type, MPI_Fint* key, MPI_Fint* info,
                                 MPI_Fint* newcomm, FortranError ierr)) {
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Comm_split_type(Comm(comm), *split_type, *key, Info(info), &c);
  if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c);
}

GS_FORTRAN(mpi_cart_create, (MPI_Fint* comm, MPI_Fint* ndims, MPI_Fint* dims, MPI_Fint* periods, MPI_Fint* reorder,
                             MPI_Fint* newcomm, FortranError ierr)) {
  const int n = *ndims > 0 ? *ndims : 0;
  std::vector<int> p(static_cast<size_t>(n > 0 ? n : 1));
  for (int i = 0; i < n; ++i) p[i] = periods[i] != 0;  // logicals
  MPI_Comm c = MPI_COMM_NULL;
  *ierr = MPI_Cart_create(Comm(comm), n, dims, p.data(), *reorder != 0, &c);
  if (*ierr == MPI_SUCCESS) *newcomm = PMPI_Comm_c2f(c);
}
