/* Late sender on purpose: after a barrier (so that a slow start of one rank cannot hide it), even
 * ranks compute 50 ms before sending 16 doubles (128 bytes, tag 7) to the next odd rank, which is
 * already waiting in MPI_Recv. 4 ranks: 2 messages, 1 collective; the receivers wait ~50 ms each. */
#include <mpi.h>
#include "sleep_ms.h"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double buf[16] = {0};
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank % 2 == 0) {
    compute_ms(50);
    MPI_Send(buf, 16, MPI_DOUBLE, rank + 1, 7, MPI_COMM_WORLD);
  } else {
    MPI_Recv(buf, 16, MPI_DOUBLE, rank - 1, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
