/* Call families beyond plain sends and collectives (issue 20 item 1), on 4 ranks:
 *  - persistent ring: MPI_Send_init/MPI_Recv_init to the next/from the previous rank (tag 1, 16
 *    ints), 5 x MPI_Startall + MPI_Waitall: 20 messages of 64 bytes;
 *  - a persistent send received by a plain MPI_Recv: rank 0 -> 1 (tag 2, 8 ints), 3 x MPI_Start +
 *    MPI_Wait: 3 messages of 32 bytes;
 *  - a matched probe: rank 2 -> 3 MPI_Send (tag 3, 4 ints), rank 3 MPI_Mprobe + MPI_Mrecv: 1
 *    message of 16 bytes; rank 1 -> 0 MPI_Send (tag 4, 1 int), rank 0 MPI_Probe + MPI_Recv: 1
 *    message of 4 bytes;
 *  - collectives: MPI_Reduce_scatter_block (1 int each), MPI_Reduce_scatter (counts 1,1,1,1),
 *    MPI_Exscan (1 int), MPI_Alltoallw (1 int to each): 4 instances over MPI_COMM_WORLD;
 *  - non-blocking collectives: MPI_Ibarrier and MPI_Iallreduce, each completed by MPI_Wait;
 *  - one-sided: MPI_Win_fence, MPI_Put of 1 int to the next rank, MPI_Win_fence;
 *  - communicators: MPI_Comm_split_type (shared memory) and MPI_Cart_create (1-d ring), each with
 *    an MPI_Barrier on it. */
#include <mpi.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int next = (rank + 1) % size, prev = (rank + size - 1) % size;

  int out[16] = {0}, in[16];
  MPI_Request ring[2];
  MPI_Send_init(out, 16, MPI_INT, next, 1, MPI_COMM_WORLD, &ring[0]);
  MPI_Recv_init(in, 16, MPI_INT, prev, 1, MPI_COMM_WORLD, &ring[1]);
  for (int i = 0; i < 5; ++i) {
    MPI_Startall(2, ring);
    MPI_Waitall(2, ring, MPI_STATUSES_IGNORE);
  }
  MPI_Request_free(&ring[0]);
  MPI_Request_free(&ring[1]);

  int eight[8] = {0};
  if (rank == 0) {
    MPI_Request send;
    MPI_Send_init(eight, 8, MPI_INT, 1, 2, MPI_COMM_WORLD, &send);
    for (int i = 0; i < 3; ++i) {
      MPI_Start(&send);
      MPI_Wait(&send, MPI_STATUS_IGNORE);
    }
    MPI_Request_free(&send);
  } else if (rank == 1) {
    for (int i = 0; i < 3; ++i) MPI_Recv(eight, 8, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }

  int four[4] = {0}, one = rank;
  if (rank == 2) MPI_Send(four, 4, MPI_INT, 3, 3, MPI_COMM_WORLD);
  if (rank == 3) {
    MPI_Message message;
    MPI_Status status;
    MPI_Mprobe(2, 3, MPI_COMM_WORLD, &message, &status);
    MPI_Mrecv(four, 4, MPI_INT, &message, MPI_STATUS_IGNORE);
  }
  if (rank == 1) MPI_Send(&one, 1, MPI_INT, 0, 4, MPI_COMM_WORLD);
  if (rank == 0) {
    MPI_Status status;
    MPI_Probe(1, 4, MPI_COMM_WORLD, &status);
    MPI_Recv(&one, 1, MPI_INT, status.MPI_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  }

  int each[16] = {0}, mine = 0, counts[16], displs[16];
  MPI_Datatype types[16];
  for (int i = 0; i < size && i < 16; ++i) counts[i] = 1, displs[i] = i * (int)sizeof(int), types[i] = MPI_INT;
  MPI_Reduce_scatter_block(each, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Reduce_scatter(each, &mine, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Exscan(&one, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  int back[16];
  MPI_Alltoallw(each, counts, displs, types, back, counts, displs, types, MPI_COMM_WORLD);

  MPI_Request request;
  MPI_Ibarrier(MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);
  MPI_Iallreduce(&one, &mine, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &request);
  MPI_Wait(&request, MPI_STATUS_IGNORE);

  int window_memory = 0;
  MPI_Win win;
  MPI_Win_create(&window_memory, sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
  MPI_Win_fence(0, win);
  MPI_Put(&one, 1, MPI_INT, next, 0, 1, MPI_INT, win);
  MPI_Win_fence(0, win);
  MPI_Win_free(&win);

  MPI_Comm node, cart;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
  MPI_Barrier(node);
  int dims[1] = {size}, periods[1] = {1};
  MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
  MPI_Barrier(cart);
  MPI_Comm_free(&cart);
  MPI_Comm_free(&node);
  MPI_Finalize();
  return 0;
}
