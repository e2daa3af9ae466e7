/* Late start: the last rank computes 50 ms before its first MPI call, a send to rank 0; the
 * message then travels the ring 0 -> 1 -> ... -> size-2, and everybody meets in a barrier. The
 * critical path must start on the last rank and hold its 50 ms of computation: its timeline
 * begins at MPI_Init, not at its first send. 4 ranks: 3 messages (tag 10, 400 bytes), 1 barrier. */
#include <mpi.h>
#include <time.h>

static void compute_ms(int ms) {
  struct timespec start, now;
  clock_gettime(CLOCK_MONOTONIC, &start);
  do {
    clock_gettime(CLOCK_MONOTONIC, &now);
  } while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) < ms * 1000000L);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int buf[100] = {0};
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;
  if (rank == size - 1) {
    compute_ms(50);
    MPI_Send(buf, 100, MPI_INT, next, 10, MPI_COMM_WORLD);
  } else {
    MPI_Recv(buf, 100, MPI_INT, prev, 10, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (rank != size - 2) MPI_Send(buf, 100, MPI_INT, next, 10, MPI_COMM_WORLD);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Finalize();
  return 0;
}
