/* Ring: 3 rounds, each rank passes 100 ints (400 bytes, tag 10) to the next rank; then one
 * MPI_Allreduce of one int. With 4 ranks: 12 messages, 1 collective. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int buf[100] = {0};
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  for (int round = 0; round < 3; ++round) {
    if (rank == 0) {
      MPI_Send(buf, 100, MPI_INT, next, 10, MPI_COMM_WORLD);
      MPI_Recv(buf, 100, MPI_INT, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else {
      MPI_Recv(buf, 100, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf, 100, MPI_INT, next, 10, MPI_COMM_WORLD);
    }
  }
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  return sum == size ? 0 : 1;
}
