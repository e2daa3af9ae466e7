/* Non-blocking exchange: twice, every rank posts an MPI_Irecv (MPI_ANY_SOURCE, tag 3) for each
 * other rank, an MPI_Isend of 64 ints (256 bytes) to each, then one MPI_Waitall over all
 * requests. 4 ranks: 2 * 4 * 3 = 24 messages, no collective. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  static int out[64], in[16][64];
  MPI_Request requests[32];
  for (int round = 0; round < 2; ++round) {
    int n = 0;
    for (int p = 0; p < size && p < 16; ++p) {
      if (p != rank) MPI_Irecv(in[p], 64, MPI_INT, MPI_ANY_SOURCE, 3, MPI_COMM_WORLD, &requests[n++]);
    }
    for (int p = 0; p < size && p < 16; ++p) {
      if (p != rank) MPI_Isend(out, 64, MPI_INT, p, 3, MPI_COMM_WORLD, &requests[n++]);
    }
    MPI_Waitall(n, requests, MPI_STATUSES_IGNORE);
  }
  MPI_Finalize();
  return 0;
}
