/* OSU-style point-to-point latency between ranks 0 and 1 (osu_latency's method: a warm-up, then
 * `iterations` ping-pongs per message size; latency = half the round trip), blocking
 * (MPI_Send/MPI_Recv) or with persistent requests (MPI_Send_init/MPI_Recv_init + MPI_Start +
 * MPI_Wait). Run untraced and under `grainscope record` by bench/mpi/mpi_latency.sh, which reports
 * the ratio. Rank 0 prints one JSON line per size:
 *   {"bench": "mpi_latency", "mode": "blocking", "bytes": 8, "iterations": 10000, "latency_us": 0.41}
 * Usage: mpi_latency [blocking|persistent] [iterations] */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const int kSizes[] = {0, 8, 64, 512, 4096, 32768};

static double PingPong(int rank, char* buf, int bytes, int iterations, int persistent) {
  const int peer = 1 - rank;
  MPI_Request send, recv;
  if (persistent) {
    MPI_Send_init(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &send);
    MPI_Recv_init(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &recv);
  }
  const int warmup = iterations / 10 + 1;
  double start = 0;
  for (int i = 0; i < warmup + iterations; ++i) {
    if (i == warmup) {
      MPI_Barrier(MPI_COMM_WORLD);
      start = MPI_Wtime();
    }
    for (int turn = 0; turn < 2; ++turn) {
      const int sending = (turn == 0) == (rank == 0);
      if (persistent) {
        MPI_Request* r = sending ? &send : &recv;
        MPI_Start(r);
        MPI_Wait(r, MPI_STATUS_IGNORE);
      } else if (sending) {
        MPI_Send(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD);
      } else {
        MPI_Recv(buf, bytes, MPI_CHAR, peer, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      }
    }
  }
  const double elapsed = MPI_Wtime() - start;
  if (persistent) {
    MPI_Request_free(&send);
    MPI_Request_free(&recv);
  }
  return elapsed * 1e6 / (2.0 * iterations);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int persistent = argc > 1 && strcmp(argv[1], "persistent") == 0;
  const int iterations = argc > 2 ? atoi(argv[2]) : 10000;
  if (size < 2 || iterations <= 0) {
    if (rank == 0) fprintf(stderr, "mpi_latency: needs 2 ranks and iterations > 0\n");
    MPI_Finalize();
    return 2;
  }
  char* buf = calloc(1, kSizes[sizeof kSizes / sizeof kSizes[0] - 1]);
  for (size_t s = 0; s < sizeof kSizes / sizeof kSizes[0]; ++s) {
    double latency = 0;
    if (rank < 2) latency = PingPong(rank, buf, kSizes[s], iterations, persistent);
    if (rank == 0) {
      printf("{\"bench\": \"mpi_latency\", \"mode\": \"%s\", \"bytes\": %d, \"iterations\": %d, \"latency_us\": %.3f}\n",
             persistent ? "persistent" : "blocking", kSizes[s], iterations, latency);
      fflush(stdout);
    }
  }
  free(buf);
  MPI_Finalize();
  return 0;
}
