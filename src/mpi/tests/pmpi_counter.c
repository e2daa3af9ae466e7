/* An independent PMPI call counter for the MPI tests (issue 20): preloaded instead of
 * libgrainscope-mpi, it counts every call of the MPI functions below that the program makes and,
 * at MPI_Finalize, writes "NAME COUNT" lines to $GS_PMPI_COUNT_DIR/counts-<rank>.txt. The test
 * then compares libgrainscope-mpi's trace (its call regions) with these counts.
 *
 * It shares no code with libgrainscope-mpi, not even mpi.h: every wrapper has one generic shape,
 * int MPI_X(long a1, ..., long a12) { count; return PMPI_X(a1, ..., a12); }, which forwards any
 * call of up to 12 integer or pointer arguments unchanged on x86-64 (the System V ABI passes them
 * in the same registers and 8-byte stack slots; a callee ignores the extra ones). The f08 names
 * (mpi_send_f08_ -> pmpi_send_f08_) are counted under the C name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GS_COUNTED(X)                                                                             \
  X(MPI_Init, mpi_init) X(MPI_Init_thread, mpi_init_thread) X(MPI_Finalize, mpi_finalize)           \
  X(MPI_Send, mpi_send) X(MPI_Ssend, mpi_ssend) X(MPI_Bsend, mpi_bsend) X(MPI_Rsend, mpi_rsend)      \
  X(MPI_Recv, mpi_recv) X(MPI_Isend, mpi_isend) X(MPI_Issend, mpi_issend) X(MPI_Irecv, mpi_irecv)   \
  X(MPI_Sendrecv, mpi_sendrecv) X(MPI_Sendrecv_replace, mpi_sendrecv_replace)                       \
  X(MPI_Wait, mpi_wait) X(MPI_Waitall, mpi_waitall) X(MPI_Waitany, mpi_waitany)                     \
  X(MPI_Waitsome, mpi_waitsome) X(MPI_Test, mpi_test) X(MPI_Testall, mpi_testall)                   \
  X(MPI_Testany, mpi_testany) X(MPI_Testsome, mpi_testsome)                                         \
  X(MPI_Send_init, mpi_send_init) X(MPI_Ssend_init, mpi_ssend_init) X(MPI_Recv_init, mpi_recv_init) \
  X(MPI_Start, mpi_start) X(MPI_Startall, mpi_startall) X(MPI_Request_free, mpi_request_free)       \
  X(MPI_Probe, mpi_probe) X(MPI_Iprobe, mpi_iprobe) X(MPI_Mprobe, mpi_mprobe)                       \
  X(MPI_Improbe, mpi_improbe) X(MPI_Mrecv, mpi_mrecv) X(MPI_Imrecv, mpi_imrecv)                     \
  X(MPI_Barrier, mpi_barrier) X(MPI_Bcast, mpi_bcast) X(MPI_Reduce, mpi_reduce)                     \
  X(MPI_Allreduce, mpi_allreduce) X(MPI_Scan, mpi_scan) X(MPI_Exscan, mpi_exscan)                   \
  X(MPI_Gather, mpi_gather) X(MPI_Gatherv, mpi_gatherv) X(MPI_Scatter, mpi_scatter)                 \
  X(MPI_Scatterv, mpi_scatterv) X(MPI_Allgather, mpi_allgather) X(MPI_Allgatherv, mpi_allgatherv)   \
  X(MPI_Alltoall, mpi_alltoall) X(MPI_Alltoallv, mpi_alltoallv) X(MPI_Alltoallw, mpi_alltoallw)     \
  X(MPI_Reduce_scatter, mpi_reduce_scatter) X(MPI_Reduce_scatter_block, mpi_reduce_scatter_block)   \
  X(MPI_Ibarrier, mpi_ibarrier) X(MPI_Ibcast, mpi_ibcast) X(MPI_Iallreduce, mpi_iallreduce)         \
  X(MPI_Ireduce, mpi_ireduce) X(MPI_Iscan, mpi_iscan) X(MPI_Iexscan, mpi_iexscan)                   \
  X(MPI_Igather, mpi_igather) X(MPI_Igatherv, mpi_igatherv) X(MPI_Iscatter, mpi_iscatter)           \
  X(MPI_Iscatterv, mpi_iscatterv) X(MPI_Iallgather, mpi_iallgather)                                 \
  X(MPI_Iallgatherv, mpi_iallgatherv) X(MPI_Ialltoall, mpi_ialltoall)                               \
  X(MPI_Ialltoallv, mpi_ialltoallv) X(MPI_Ialltoallw, mpi_ialltoallw)                               \
  X(MPI_Ireduce_scatter, mpi_ireduce_scatter) X(MPI_Ireduce_scatter_block, mpi_ireduce_scatter_block) \
  X(MPIX_Barrier_init, mpix_barrier_init) X(MPIX_Allreduce_init, mpix_allreduce_init)              \
  X(MPIX_Bcast_init, mpix_bcast_init)                                                               \
  X(MPI_Put, mpi_put) X(MPI_Get, mpi_get) X(MPI_Accumulate, mpi_accumulate)                         \
  X(MPI_Win_fence, mpi_win_fence) X(MPI_Win_lock, mpi_win_lock) X(MPI_Win_unlock, mpi_win_unlock)   \
  X(MPI_Win_create, mpi_win_create) X(MPI_Win_free, mpi_win_free)                                   \
  X(MPI_Comm_dup, mpi_comm_dup) X(MPI_Comm_split, mpi_comm_split)                                   \
  X(MPI_Comm_split_type, mpi_comm_split_type) X(MPI_Comm_create, mpi_comm_create)                   \
  X(MPI_Comm_free, mpi_comm_free) X(MPI_Cart_create, mpi_cart_create)                               \
  X(MPI_Comm_rank, mpi_comm_rank) X(MPI_Comm_size, mpi_comm_size)

enum {
#define GS_ENUM(c, f) k_##c,
  GS_COUNTED(GS_ENUM) kCounted
};
static const char* const kNames[] = {
#define GS_NAME(c, f) #c,
    GS_COUNTED(GS_NAME)};
static unsigned long g_counts[kCounted];

static void WriteCounts(void) {
  const char* dir = getenv("GS_PMPI_COUNT_DIR");
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (dir == NULL) return;
  char path[4096];
  snprintf(path, sizeof path, "%s/counts-%s.txt", dir, rank != NULL ? rank : "0");
  FILE* f = fopen(path, "w");
  if (f == NULL) return;
  for (int i = 0; i < kCounted; ++i)
    if (g_counts[i] > 0) fprintf(f, "%s %lu\n", kNames[i], g_counts[i]);
  fclose(f);
}

#define GS_ARGS long a1, long a2, long a3, long a4, long a5, long a6, long a7, long a8, long a9, long a10, long a11, long a12
#define GS_PASS a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12
// One call of function k; MPI_Finalize writes the counts before the library goes away.
static void Count(int k) {
  __atomic_fetch_add(&g_counts[k], 1, __ATOMIC_RELAXED);
  if (k == k_MPI_Finalize) WriteCounts();
}

#define GS_WRAP(c, f)                 \
  int P##c();                         \
  int c(GS_ARGS) {                    \
    Count(k_##c);                     \
    return P##c(GS_PASS);             \
  }                                   \
  void p##f##_f08_();                 \
  void f##_f08_(GS_ARGS) {            \
    Count(k_##c);                     \
    p##f##_f08_(GS_PASS);             \
  }
GS_COUNTED(GS_WRAP)
