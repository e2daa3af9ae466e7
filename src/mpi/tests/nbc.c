/* Non-blocking and persistent collectives (issue 20 item 1), on 4 ranks, in this order over
 * MPI_COMM_WORLD (instance numbers after MPI_Init's):
 *   1  MPI_Ibarrier, rank 3 20 ms late: the others wait for it in the MPI_Wait that completes it;
 *   2  MPI_Ibarrier, and
 *   3  an MPI_Allreduce started and finished while instance 2 is in flight (its end comes first),
 *      then the MPI_Wait of instance 2;
 *   4,5  MPI_Ibcast (root 1, 8 ints) and MPI_Iallreduce (1 int), completed together by one
 *      MPI_Waitall, listed in the opposite order;
 *   6  MPI_Ireduce (root 0, 2 ints), completed by an MPI_Test loop;
 *   7-19  each other non-blocking collective once, each completed by MPI_Wait: Igather, Igatherv,
 *      Iscatter, Iscatterv, Iallgather, Iallgatherv, Ialltoall, Ialltoallv, Ialltoallw, Iscan,
 *      Iexscan, Ireduce_scatter, Ireduce_scatter_block;
 *   20-24  MPIX_Allreduce_init (1 int), 5 x MPI_Start + MPI_Wait, MPI_Request_free;
 *   25-26  MPIX_Barrier_init and MPIX_Bcast_init (root 2, 4 ints) started by one MPI_Startall,
 *      completed by one MPI_Waitall, both requests freed.
 * Without Open MPI's pcollreq extension the persistent part is left out (20-26 missing). */
#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif
#include "sleep_ms.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Request r[2];
  int one = rank + 1, sum = 0;
  if (rank == 3) compute_ms(20);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);

  int eight[8] = {0};
  MPI_Ibcast(eight, 8, MPI_INT, 1, MPI_COMM_WORLD, &r[1]);
  MPI_Iallreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

  int two[2] = {rank, rank}, reduced[2];
  MPI_Ireduce(two, reduced, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD, &r[0]);
  for (int done = 0; !done;) MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);

  int each[16] = {0}, back[16], counts[16], displs[16], mine = 0;
  MPI_Datatype types[16];
  for (int i = 0; i < size && i < 16; ++i) counts[i] = 1, displs[i] = i, types[i] = MPI_INT;
  int bytes_displs[16];
  for (int i = 0; i < size && i < 16; ++i) bytes_displs[i] = i * (int)sizeof(int);
  MPI_Igather(&one, 1, MPI_INT, back, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Igatherv(&one, 1, MPI_INT, back, counts, displs, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Iscatter(each, 1, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Iscatterv(each, counts, displs, MPI_INT, &mine, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Iallgather(&one, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Iallgatherv(&one, 1, MPI_INT, back, counts, displs, MPI_INT, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Ialltoall(each, 1, MPI_INT, back, 1, MPI_INT, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Ialltoallv(each, counts, displs, MPI_INT, back, counts, displs, MPI_INT, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Ialltoallw(each, counts, bytes_displs, types, back, counts, bytes_displs, types, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Iscan(&one, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Iexscan(&one, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Ireduce_scatter(each, &mine, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);
  MPI_Ireduce_scatter_block(each, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Wait(&r[0], MPI_STATUS_IGNORE);

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
  MPI_Request persistent;
  MPIX_Allreduce_init(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &persistent);
  for (int i = 0; i < 5; ++i) {
    MPI_Start(&persistent);
    MPI_Wait(&persistent, MPI_STATUS_IGNORE);
  }
  MPI_Request_free(&persistent);
  int four[4] = {0};
  MPIX_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, &r[0]);
  MPIX_Bcast_init(four, 4, MPI_INT, 2, MPI_COMM_WORLD, MPI_INFO_NULL, &r[1]);
  MPI_Startall(2, r);
  MPI_Waitall(2, r, MPI_STATUSES_IGNORE);
  MPI_Request_free(&r[0]);
  MPI_Request_free(&r[1]);
#endif
  MPI_Finalize();
  return 0;
}
