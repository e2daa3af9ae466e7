/* A program that never calls MPI_Finalize: one message 0 -> 1 (tag 2, 4 bytes), a barrier, exit.
 * mpirun reports the ranks' exit as an error and kills the ranks still running; the trace
 * directory must still read as one trace (the runtime closes each rank's stream at exit or on
 * SIGTERM), with the MPI_Init clock offsets only. */
#include <mpi.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size, x = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (rank == 0) MPI_Send(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
  if (rank == 1) MPI_Recv(&x, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  MPI_Barrier(MPI_COMM_WORLD);
  exit(0);  /* never calls MPI_Finalize */
}
