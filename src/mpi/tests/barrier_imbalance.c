/* Barrier imbalance: rank r computes 10*r ms before each of 3 barriers. Then communicators: a
 * split into even and odd ranks with a broadcast of 4 ints (16 bytes) from each half's rank 0,
 * and a duplicate of MPI_COMM_WORLD carrying a ring message (tag 10, 4 bytes) per rank.
 * 4 ranks: 3 + 2 collectives (barriers on world, one bcast per half), 4 messages on the dup. */
#include <mpi.h>
#include "sleep_ms.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 0; i < 3; ++i) {
    compute_ms(10 * rank);
    MPI_Barrier(MPI_COMM_WORLD);
  }
  MPI_Comm half, dup;
  MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
  int data[4] = {1, 2, 3, 4};
  MPI_Bcast(data, 4, MPI_INT, 0, half);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  int token = rank;
  MPI_Sendrecv_replace(&token, 1, MPI_INT, (rank + 1) % size, 10, (rank + size - 1) % size, 10, dup,
                       MPI_STATUS_IGNORE);
  MPI_Comm_free(&dup);
  MPI_Comm_free(&half);
  MPI_Finalize();
  return 0;
}
