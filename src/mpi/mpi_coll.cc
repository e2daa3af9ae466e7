// PMPI wrappers (C bindings) for MPI_Init/Finalize, communicator creation and the collectives.
//
// A collective is recorded as its call's region plus a "mpi.coll" marker at its begin carrying
// the operation, communicator, root and the bytes this rank's buffers send and receive:
// bcast: the root sends count, the others receive it; reduce: everybody sends, the root
// receives; gather(v)/scatter(v): the root receives/sends one piece per member; allgather(v),
// alltoall(v): per member pieces; allreduce and scan: count both ways; barrier: nothing.
#include "mpi/mpi_state.h"

namespace gm = grainscope::mpi;

namespace {

GS_MPI_REGION(r_barrier, "MPI_Barrier");
GS_MPI_REGION(r_bcast, "MPI_Bcast");
GS_MPI_REGION(r_reduce, "MPI_Reduce");
GS_MPI_REGION(r_allreduce, "MPI_Allreduce");
GS_MPI_REGION(r_gather, "MPI_Gather");
GS_MPI_REGION(r_gatherv, "MPI_Gatherv");
GS_MPI_REGION(r_scatter, "MPI_Scatter");
GS_MPI_REGION(r_scatterv, "MPI_Scatterv");
GS_MPI_REGION(r_allgather, "MPI_Allgather");
GS_MPI_REGION(r_allgatherv, "MPI_Allgatherv");
GS_MPI_REGION(r_alltoall, "MPI_Alltoall");
GS_MPI_REGION(r_alltoallv, "MPI_Alltoallv");
GS_MPI_REGION(r_scan, "MPI_Scan");
GS_MPI_REGION(r_exscan, "MPI_Exscan");
GS_MPI_REGION(r_reduce_scatter, "MPI_Reduce_scatter");
GS_MPI_REGION(r_reduce_scatter_block, "MPI_Reduce_scatter_block");
GS_MPI_REGION(r_alltoallw, "MPI_Alltoallw");
// Non-blocking collectives: the call's region (their completion is the MPI_Wait/Test region).
GS_MPI_REGION(r_ibarrier, "MPI_Ibarrier");
GS_MPI_REGION(r_ibcast, "MPI_Ibcast");
GS_MPI_REGION(r_ireduce, "MPI_Ireduce");
GS_MPI_REGION(r_iallreduce, "MPI_Iallreduce");
GS_MPI_REGION(r_igather, "MPI_Igather");
GS_MPI_REGION(r_iscatter, "MPI_Iscatter");
GS_MPI_REGION(r_iallgather, "MPI_Iallgather");
GS_MPI_REGION(r_ialltoall, "MPI_Ialltoall");
GS_MPI_REGION(r_iscan, "MPI_Iscan");
GS_MPI_REGION(r_iexscan, "MPI_Iexscan");
GS_MPI_REGION(r_ireduce_scatter_block, "MPI_Ireduce_scatter_block");

int Rank(MPI_Comm comm) {
  int r = -1;
  PMPI_Comm_rank(comm, &r);
  return r;
}
int Size(MPI_Comm comm) {
  int n = 0;
  PMPI_Comm_size(comm, &n);
  return n;
}
uint64_t Sum(const int counts[], int n, MPI_Datatype type) {
  uint64_t total = 0;
  for (int i = 0; counts != nullptr && i < n; ++i) total += gm::Bytes(counts[i], type);
  return total;
}

}  // namespace

extern "C" {

// The entry time is read before PMPI_Init: the call is the rank's first region (see AfterInit).
int MPI_Init(int* argc, char*** argv) {
  const int64_t entry = gm::MonotonicNs();
  const int rc = PMPI_Init(argc, argv);
  gm::AfterInit(rc, entry, false);
  return rc;
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int64_t entry = gm::MonotonicNs();
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  gm::AfterInit(rc, entry, true);
  return rc;
}

int MPI_Finalize(void) {
  gm::BeforeFinalize();
  return PMPI_Finalize();
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  GS_MPI_REGION(r_comm_dup, "MPI_Comm_dup");
  gm::CallRegion call(&r_comm_dup);
  const int rc = PMPI_Comm_dup(comm, newcomm);
  if (rc == MPI_SUCCESS && gm::Recording()) gm::RegisterDerivedComm(comm, *newcomm);
  return rc;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  GS_MPI_REGION(r_comm_split, "MPI_Comm_split");
  gm::CallRegion call(&r_comm_split);
  const int rc = PMPI_Comm_split(comm, color, key, newcomm);
  if (rc == MPI_SUCCESS && gm::Recording()) gm::RegisterDerivedComm(comm, *newcomm);
  return rc;
}

// Communicators created collectively over `comm`'s members: registered as MPI_Comm_split's are.
// Each creation and MPI_Comm_free is recorded as its call's region.
int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  GS_MPI_REGION(r_comm_create, "MPI_Comm_create");
  gm::CallRegion call(&r_comm_create);
  const int rc = PMPI_Comm_create(comm, group, newcomm);
  if (rc == MPI_SUCCESS && gm::Recording()) gm::RegisterDerivedComm(comm, *newcomm);
  return rc;
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm* newcomm) {
  GS_MPI_REGION(r_comm_split_type, "MPI_Comm_split_type");
  gm::CallRegion call(&r_comm_split_type);
  const int rc = PMPI_Comm_split_type(comm, split_type, key, info, newcomm);
  if (rc == MPI_SUCCESS && gm::Recording()) gm::RegisterDerivedComm(comm, *newcomm);
  return rc;
}

int MPI_Cart_create(MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder, MPI_Comm* newcomm) {
  GS_MPI_REGION(r_cart_create, "MPI_Cart_create");
  gm::CallRegion call(&r_cart_create);
  const int rc = PMPI_Cart_create(comm, ndims, dims, periods, reorder, newcomm);
  if (rc == MPI_SUCCESS && gm::Recording()) gm::RegisterDerivedComm(comm, *newcomm);
  return rc;
}

int MPI_Dist_graph_create_adjacent(MPI_Comm comm, int indegree, const int sources[], const int sourceweights[],
                                   int outdegree, const int destinations[], const int destweights[], MPI_Info info,
                                   int reorder, MPI_Comm* newcomm) {
  GS_MPI_REGION(r_dist_graph_create_adjacent, "MPI_Dist_graph_create_adjacent");
  gm::CallRegion call(&r_dist_graph_create_adjacent);
  const int rc = PMPI_Dist_graph_create_adjacent(comm, indegree, sources, sourceweights, outdegree, destinations,
                                                 destweights, info, reorder, newcomm);
  if (rc == MPI_SUCCESS && gm::Recording()) gm::RegisterDerivedComm(comm, *newcomm);
  return rc;
}

int MPI_Dist_graph_create(MPI_Comm comm, int n, const int sources[], const int degrees[], const int destinations[],
                          const int weights[], MPI_Info info, int reorder, MPI_Comm* newcomm) {
  GS_MPI_REGION(r_dist_graph_create, "MPI_Dist_graph_create");
  gm::CallRegion call(&r_dist_graph_create);
  const int rc = PMPI_Dist_graph_create(comm, n, sources, degrees, destinations, weights, info, reorder, newcomm);
  if (rc == MPI_SUCCESS && gm::Recording()) gm::RegisterDerivedComm(comm, *newcomm);
  return rc;
}

// Collective over the local communicator's members (each side registers it under its own).
int MPI_Intercomm_create(MPI_Comm local_comm, int local_leader, MPI_Comm peer_comm, int remote_leader, int tag,
                         MPI_Comm* newintercomm) {
  GS_MPI_REGION(r_intercomm_create, "MPI_Intercomm_create");
  gm::CallRegion call(&r_intercomm_create);
  const int rc = PMPI_Intercomm_create(local_comm, local_leader, peer_comm, remote_leader, tag, newintercomm);
  if (rc == MPI_SUCCESS && gm::Recording()) gm::RegisterDerivedComm(local_comm, *newintercomm);
  return rc;
}

int MPI_Comm_free(MPI_Comm* comm) {
  GS_MPI_REGION(r_comm_free, "MPI_Comm_free");
  gm::CallRegion call(&r_comm_free);
  if (gm::Recording()) gm::ForgetComm(*comm);
  return PMPI_Comm_free(comm);
}

int MPI_Barrier(MPI_Comm comm) {
  gm::CallRegion call(&r_barrier);
  if (call.active()) gm::RecordCollective("barrier", comm, -1, 0, 0);
  return PMPI_Barrier(comm);
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  gm::CallRegion call(&r_bcast);
  if (call.active()) {
    const uint64_t n = gm::Bytes(count, type);
    const bool is_root = Rank(comm) == root;
    gm::RecordCollective("bcast", comm, root, is_root ? n : 0, is_root ? 0 : n);
  }
  return PMPI_Bcast(buf, count, type, root, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root,
               MPI_Comm comm) {
  gm::CallRegion call(&r_reduce);
  if (call.active()) {
    const uint64_t n = gm::Bytes(count, type);
    gm::RecordCollective("reduce", comm, root, n, Rank(comm) == root ? n : 0);
  }
  return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  gm::CallRegion call(&r_allreduce);
  if (call.active()) {
    const uint64_t n = gm::Bytes(count, type);
    gm::RecordCollective("allreduce", comm, -1, n, n);
  }
  return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  gm::CallRegion call(&r_scan);
  if (call.active()) {
    const uint64_t n = gm::Bytes(count, type);
    gm::RecordCollective("scan", comm, -1, n, n);
  }
  return PMPI_Scan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
               MPI_Datatype recvtype, int root, MPI_Comm comm) {
  gm::CallRegion call(&r_gather);
  if (call.active()) {
    const bool is_root = Rank(comm) == root;
    const uint64_t piece = is_root ? gm::Bytes(recvcount, recvtype) : 0;
    const uint64_t sent = sendbuf == MPI_IN_PLACE ? piece : gm::Bytes(sendcount, sendtype);
    gm::RecordCollective("gather", comm, root, sent, is_root ? piece * Size(comm) : 0);
  }
  return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  gm::CallRegion call(&r_gatherv);
  if (call.active()) {
    const int me = Rank(comm);
    const bool is_root = me == root;
    const uint64_t sent = sendbuf == MPI_IN_PLACE ? (is_root ? gm::Bytes(recvcounts[me], recvtype) : 0)
                                                  : gm::Bytes(sendcount, sendtype);
    gm::RecordCollective("gather", comm, root, sent, is_root ? Sum(recvcounts, Size(comm), recvtype) : 0);
  }
  return PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm) {
  gm::CallRegion call(&r_scatter);
  if (call.active()) {
    const bool is_root = Rank(comm) == root;
    const uint64_t piece = is_root ? gm::Bytes(sendcount, sendtype) : 0;
    const uint64_t received = recvbuf == MPI_IN_PLACE ? piece : gm::Bytes(recvcount, recvtype);
    gm::RecordCollective("scatter", comm, root, is_root ? piece * Size(comm) : 0, received);
  }
  return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  gm::CallRegion call(&r_scatterv);
  if (call.active()) {
    const int me = Rank(comm);
    const bool is_root = me == root;
    const uint64_t received = recvbuf == MPI_IN_PLACE ? (is_root ? gm::Bytes(sendcounts[me], sendtype) : 0)
                                                      : gm::Bytes(recvcount, recvtype);
    gm::RecordCollective("scatter", comm, root, is_root ? Sum(sendcounts, Size(comm), sendtype) : 0, received);
  }
  return PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm) {
  gm::CallRegion call(&r_allgather);
  if (call.active()) {
    const uint64_t piece = gm::Bytes(recvcount, recvtype);
    const uint64_t sent = sendbuf == MPI_IN_PLACE ? piece : gm::Bytes(sendcount, sendtype);
    gm::RecordCollective("allgather", comm, -1, sent, piece * Size(comm));
  }
  return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  gm::CallRegion call(&r_allgatherv);
  if (call.active()) {
    const uint64_t sent = sendbuf == MPI_IN_PLACE ? gm::Bytes(recvcounts[Rank(comm)], recvtype)
                                                  : gm::Bytes(sendcount, sendtype);
    gm::RecordCollective("allgather", comm, -1, sent, Sum(recvcounts, Size(comm), recvtype));
  }
  return PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, MPI_Comm comm) {
  gm::CallRegion call(&r_alltoall);
  if (call.active()) {
    const uint64_t received = gm::Bytes(recvcount, recvtype) * Size(comm);
    const uint64_t sent = sendbuf == MPI_IN_PLACE ? received : gm::Bytes(sendcount, sendtype) * Size(comm);
    gm::RecordCollective("alltoall", comm, -1, sent, received);
  }
  return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype,
                  void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype,
                  MPI_Comm comm) {
  gm::CallRegion call(&r_alltoallv);
  if (call.active()) {
    const int n = Size(comm);
    const uint64_t received = Sum(recvcounts, n, recvtype);
    const uint64_t sent = sendbuf == MPI_IN_PLACE ? received : Sum(sendcounts, n, sendtype);
    gm::RecordCollective("alltoall", comm, -1, sent, received);
  }
  return PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  gm::CallRegion call(&r_exscan);
  if (call.active()) {
    const uint64_t n = gm::Bytes(count, type);
    gm::RecordCollective("scan", comm, -1, n, Rank(comm) == 0 ? 0 : n);
  }
  return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op,
                       MPI_Comm comm) {
  gm::CallRegion call(&r_reduce_scatter);
  if (call.active()) {
    const int me = Rank(comm);
    gm::RecordCollective("reduce_scatter", comm, -1, Sum(recvcounts, Size(comm), type),
                         me >= 0 && recvcounts != nullptr ? gm::Bytes(recvcounts[me], type) : 0);
  }
  return PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm) {
  gm::CallRegion call(&r_reduce_scatter_block);
  if (call.active()) {
    const uint64_t n = gm::Bytes(recvcount, type);
    gm::RecordCollective("reduce_scatter", comm, -1, n * Size(comm), n);
  }
  return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[],
                  void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[],
                  MPI_Comm comm) {
  gm::CallRegion call(&r_alltoallw);
  if (call.active()) {
    uint64_t sent = 0, received = 0;
    for (int i = 0, n = Size(comm); i < n; ++i) {
      if (recvcounts != nullptr) received += gm::Bytes(recvcounts[i], recvtypes[i]);
      if (sendbuf != MPI_IN_PLACE && sendcounts != nullptr) sent += gm::Bytes(sendcounts[i], sendtypes[i]);
    }
    gm::RecordCollective("alltoall", comm, -1, sendbuf == MPI_IN_PLACE ? received : sent, received);
  }
  return PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  return gm::InRegion(&r_ibarrier, PMPI_Ibarrier, comm, request);
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  return gm::InRegion(&r_ibcast, PMPI_Ibcast, buf, count, type, root, comm, request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm,
                MPI_Request* request) {
  return gm::InRegion(&r_ireduce, PMPI_Ireduce, sendbuf, recvbuf, count, type, op, root, comm, request);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                   MPI_Request* request) {
  return gm::InRegion(&r_iallreduce, PMPI_Iallreduce, sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gm::InRegion(&r_igather, PMPI_Igather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                      request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                 MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  return gm::InRegion(&r_iscatter, PMPI_Iscatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                      comm, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                   MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return gm::InRegion(&r_iallgather, PMPI_Iallgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  return gm::InRegion(&r_ialltoall, PMPI_Ialltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                      request);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
              MPI_Request* request) {
  return gm::InRegion(&r_iscan, PMPI_Iscan, sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm,
                MPI_Request* request) {
  return gm::InRegion(&r_iexscan, PMPI_Iexscan, sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op,
                              MPI_Comm comm, MPI_Request* request) {
  return gm::InRegion(&r_ireduce_scatter_block, PMPI_Ireduce_scatter_block, sendbuf, recvbuf, recvcount, type, op,
                      comm, request);
}

}  // extern "C"
