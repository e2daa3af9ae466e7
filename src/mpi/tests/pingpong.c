/* Ping-pong between ranks 0 and 1: 5 round trips of 1024 bytes (tag 5, synchronous send one way,
 * standard the other); ranks 2 and 3 only join the final barrier. 10 messages, 1 collective. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  char buf[1024] = {0};
  for (int i = 0; i < 5; ++i) {
    if (rank == 0) {
      MPI_Ssend(buf, 1024, MPI_CHAR, 1, 5, MPI_COMM_WORLD);
      MPI_Recv(buf, 1024, MPI_CHAR, 1, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(buf, 1024, MPI_CHAR, 0, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 1024, MPI_CHAR, 0, 5, MPI_COMM_WORLD);
    }
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
