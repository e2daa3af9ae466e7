// PMPI wrappers (C bindings) for MPI_Init/Finalize, communicator creation and the collectives.
//
// A collective is recorded as its call's region plus a "mpi.coll" marker at its begin carrying
// the operation, communicator, root and the bytes this rank's buffers send and receive:
// bcast: the root sends count, the others receive it; reduce: everybody sends, the root
// receives; gather(v)/scatter(v): the root receives/sends one piece per member; allgather(v),
// alltoall(v): per member pieces; allreduce and scan: count both ways; barrier: nothing.
//
// The non-blocking collectives (MPI_Ibarrier, ...) and Open MPI's persistent ones (MPIX_*_init,
// the pcollreq extension, begun by each MPI_Start) are recorded as collectives too: begun in the
// call that starts them, ended in the Wait/Test call that completes them (mpi_state.h).
#include "mpi/mpi_state.h"

namespace gm = grainscope::mpi;

#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>
#endif

namespace {

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

// This member's part of a collective: the root (a rank of the communicator, or -1) and the bytes
// its buffers send and receive. One function per operation family, shared by the blocking,
// non-blocking and persistent calls.
struct Part {
  int root = -1;
  uint64_t sent = 0, received = 0;
};

Part BcastPart(int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const uint64_t n = gm::Bytes(count, type);
  const bool is_root = Rank(comm) == root;
  return {root, is_root ? n : 0, is_root ? 0 : n};
}
Part ReducePart(int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const uint64_t n = gm::Bytes(count, type);
  return {root, n, Rank(comm) == root ? n : 0};
}
Part BothWaysPart(int count, MPI_Datatype type) {  // allreduce, scan
  const uint64_t n = gm::Bytes(count, type);
  return {-1, n, n};
}
Part ExscanPart(int count, MPI_Datatype type, MPI_Comm comm) {
  const uint64_t n = gm::Bytes(count, type);
  return {-1, n, Rank(comm) == 0 ? 0 : n};
}
Part GatherPart(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                int root, MPI_Comm comm) {
  const bool is_root = Rank(comm) == root;
  const uint64_t piece = is_root ? gm::Bytes(recvcount, recvtype) : 0;
  const uint64_t sent = sendbuf == MPI_IN_PLACE ? piece : gm::Bytes(sendcount, sendtype);
  return {root, sent, is_root ? piece * Size(comm) : 0};
}
Part GathervPart(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                 MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const int me = Rank(comm);
  const bool is_root = me == root;
  const uint64_t sent = sendbuf == MPI_IN_PLACE ? (is_root ? gm::Bytes(recvcounts[me], recvtype) : 0)
                                                : gm::Bytes(sendcount, sendtype);
  return {root, sent, is_root ? Sum(recvcounts, Size(comm), recvtype) : 0};
}
Part ScatterPart(int sendcount, MPI_Datatype sendtype, const void* recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm) {
  const bool is_root = Rank(comm) == root;
  const uint64_t piece = is_root ? gm::Bytes(sendcount, sendtype) : 0;
  const uint64_t received = recvbuf == MPI_IN_PLACE ? piece : gm::Bytes(recvcount, recvtype);
  return {root, is_root ? piece * Size(comm) : 0, received};
}
Part ScattervPart(const int sendcounts[], MPI_Datatype sendtype, const void* recvbuf, int recvcount,
                  MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const int me = Rank(comm);
  const bool is_root = me == root;
  const uint64_t received = recvbuf == MPI_IN_PLACE ? (is_root ? gm::Bytes(sendcounts[me], sendtype) : 0)
                                                    : gm::Bytes(recvcount, recvtype);
  return {root, is_root ? Sum(sendcounts, Size(comm), sendtype) : 0, received};
}
Part AllgatherPart(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                   MPI_Comm comm) {
  const uint64_t piece = gm::Bytes(recvcount, recvtype);
  return {-1, sendbuf == MPI_IN_PLACE ? piece : gm::Bytes(sendcount, sendtype), piece * Size(comm)};
}
Part AllgathervPart(const void* sendbuf, int sendcount, MPI_Datatype sendtype, const int recvcounts[],
                    MPI_Datatype recvtype, MPI_Comm comm) {
  const uint64_t sent = sendbuf == MPI_IN_PLACE ? gm::Bytes(recvcounts[Rank(comm)], recvtype)
                                                : gm::Bytes(sendcount, sendtype);
  return {-1, sent, Sum(recvcounts, Size(comm), recvtype)};
}
Part AlltoallPart(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int recvcount, MPI_Datatype recvtype,
                  MPI_Comm comm) {
  const uint64_t received = gm::Bytes(recvcount, recvtype) * Size(comm);
  return {-1, sendbuf == MPI_IN_PLACE ? received : gm::Bytes(sendcount, sendtype) * Size(comm), received};
}
Part AlltoallvPart(const void* sendbuf, const int sendcounts[], MPI_Datatype sendtype, const int recvcounts[],
                   MPI_Datatype recvtype, MPI_Comm comm) {
  const int n = Size(comm);
  const uint64_t received = Sum(recvcounts, n, recvtype);
  return {-1, sendbuf == MPI_IN_PLACE ? received : Sum(sendcounts, n, sendtype), received};
}
Part AlltoallwPart(const void* sendbuf, const int sendcounts[], const MPI_Datatype sendtypes[],
                   const int recvcounts[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  uint64_t sent = 0, received = 0;
  for (int i = 0, n = Size(comm); i < n; ++i) {
    if (recvcounts != nullptr) received += gm::Bytes(recvcounts[i], recvtypes[i]);
    if (sendbuf != MPI_IN_PLACE && sendcounts != nullptr) sent += gm::Bytes(sendcounts[i], sendtypes[i]);
  }
  return {-1, sendbuf == MPI_IN_PLACE ? received : sent, received};
}
Part ReduceScatterPart(const int recvcounts[], MPI_Datatype type, MPI_Comm comm) {
  const int me = Rank(comm);
  return {-1, Sum(recvcounts, Size(comm), type), me >= 0 && recvcounts != nullptr ? gm::Bytes(recvcounts[me], type) : 0};
}
Part ReduceScatterBlockPart(int recvcount, MPI_Datatype type, MPI_Comm comm) {
  const uint64_t n = gm::Bytes(recvcount, type);
  return {-1, n * Size(comm), n};
}

// A blocking collective: its call's region holds it (RecordCollective, then the region's end).
template <typename PartOf, typename Call, typename... Args>
int Blocking(gs_region* region, const char* op, MPI_Comm comm, PartOf part, Call call, Args... args) {
  gm::CallRegion scope(region);
  if (scope.active()) {
    const Part p = part();
    gm::RecordCollective(op, comm, p.root, p.sent, p.received);
  }
  return call(args...);
}

// A non-blocking collective: begun in its call, ended by the Wait/Test that completes `request`.
template <typename PartOf, typename Call, typename... Args>
int NonBlocking(gs_region* region, const char* op, MPI_Comm comm, PartOf part, MPI_Request* request, Call call,
                Args... args) {
  gm::CallRegion scope(region);
  uint32_t slot = 0;
  if (scope.active()) {
    const Part p = part();
    slot = gm::BeginNonBlockingCollective(op, comm, p.root, p.sent, p.received);
  }
  const int rc = call(args...);
  gm::TrackCollectiveRequest(rc == MPI_SUCCESS ? *request : MPI_REQUEST_NULL, slot);
  return rc;
}

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
// A persistent collective's initialisation: each MPI_Start of `request` begins an instance.
template <typename PartOf, typename Call, typename... Args>
int PersistentInit(gs_region* region, const char* op, MPI_Comm comm, PartOf part, MPI_Request* request, Call call,
                   Args... args) {
  gm::CallRegion scope(region);
  const int rc = call(args...);
  if (scope.active() && rc == MPI_SUCCESS) {
    const Part p = part();
    gm::TrackPersistentCollective(*request, op, comm, p.root, p.sent, p.received);
  }
  return rc;
}
#endif

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

// Blocking collectives.
int MPI_Barrier(MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Barrier");
  return Blocking(&r, "barrier", comm, [&] { return Part{}; }, PMPI_Barrier, comm);
}

int MPI_Bcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Bcast");
  return Blocking(&r, "bcast", comm, [&] { return BcastPart(count, type, root, comm); }, PMPI_Bcast, buf, count, type, root, comm);
}

int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Reduce");
  return Blocking(&r, "reduce", comm, [&] { return ReducePart(count, type, root, comm); }, PMPI_Reduce, sendbuf, recvbuf, count, type, op, root, comm);
}

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Allreduce");
  return Blocking(&r, "allreduce", comm, [&] { return BothWaysPart(count, type); }, PMPI_Allreduce, sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Scan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Scan");
  return Blocking(&r, "scan", comm, [&] { return BothWaysPart(count, type); }, PMPI_Scan, sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Exscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Exscan");
  return Blocking(&r, "scan", comm, [&] { return ExscanPart(count, type, comm); }, PMPI_Exscan, sendbuf, recvbuf, count, type, op, comm);
}

int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Gather");
  return Blocking(&r, "gather", comm, [&] { return GatherPart(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm); }, PMPI_Gather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Gatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Gatherv");
  return Blocking(&r, "gather", comm, [&] { return GathervPart(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm); }, PMPI_Gatherv, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm);
}

int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Scatter");
  return Blocking(&r, "scatter", comm, [&] { return ScatterPart(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); }, PMPI_Scatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Scatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Scatterv");
  return Blocking(&r, "scatter", comm, [&] { return ScattervPart(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm); }, PMPI_Scatterv, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm);
}

int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Allgather");
  return Blocking(&r, "allgather", comm, [&] { return AllgatherPart(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); }, PMPI_Allgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Allgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Allgatherv");
  return Blocking(&r, "allgather", comm, [&] { return AllgathervPart(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm); }, PMPI_Allgatherv, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm);
}

int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Alltoall");
  return Blocking(&r, "alltoall", comm, [&] { return AlltoallPart(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); }, PMPI_Alltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
}

int MPI_Alltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Alltoallv");
  return Blocking(&r, "alltoall", comm, [&] { return AlltoallvPart(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm); }, PMPI_Alltoallv, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm);
}

int MPI_Alltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Alltoallw");
  return Blocking(&r, "alltoall", comm, [&] { return AlltoallwPart(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm); }, PMPI_Alltoallw, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm);
}

int MPI_Reduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Reduce_scatter");
  return Blocking(&r, "reduce_scatter", comm, [&] { return ReduceScatterPart(recvcounts, type, comm); }, PMPI_Reduce_scatter, sendbuf, recvbuf, recvcounts, type, op, comm);
}

int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  GS_MPI_REGION(r, "MPI_Reduce_scatter_block");
  return Blocking(&r, "reduce_scatter", comm, [&] { return ReduceScatterBlockPart(recvcount, type, comm); }, PMPI_Reduce_scatter_block, sendbuf, recvbuf, recvcount, type, op, comm);
}

// Non-blocking collectives.
int MPI_Ibarrier(MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Ibarrier");
  return NonBlocking(&r, "barrier", comm, [&] { return Part{}; }, request, PMPI_Ibarrier, comm, request);
}

int MPI_Ibcast(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Ibcast");
  return NonBlocking(&r, "bcast", comm, [&] { return BcastPart(count, type, root, comm); }, request, PMPI_Ibcast, buf, count, type, root, comm, request);
}

int MPI_Ireduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Ireduce");
  return NonBlocking(&r, "reduce", comm, [&] { return ReducePart(count, type, root, comm); }, request, PMPI_Ireduce, sendbuf, recvbuf, count, type, op, root, comm, request);
}

int MPI_Iallreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Iallreduce");
  return NonBlocking(&r, "allreduce", comm, [&] { return BothWaysPart(count, type); }, request, PMPI_Iallreduce, sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Iscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Iscan");
  return NonBlocking(&r, "scan", comm, [&] { return BothWaysPart(count, type); }, request, PMPI_Iscan, sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Iexscan(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Iexscan");
  return NonBlocking(&r, "scan", comm, [&] { return ExscanPart(count, type, comm); }, request, PMPI_Iexscan, sendbuf, recvbuf, count, type, op, comm, request);
}

int MPI_Igather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Igather");
  return NonBlocking(&r, "gather", comm, [&] { return GatherPart(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm); }, request, PMPI_Igather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

int MPI_Igatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Igatherv");
  return NonBlocking(&r, "gather", comm, [&] { return GathervPart(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm); }, request, PMPI_Igatherv, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, request);
}

int MPI_Iscatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Iscatter");
  return NonBlocking(&r, "scatter", comm, [&] { return ScatterPart(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); }, request, PMPI_Iscatter, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

int MPI_Iscatterv(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Iscatterv");
  return NonBlocking(&r, "scatter", comm, [&] { return ScattervPart(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm); }, request, PMPI_Iscatterv, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, request);
}

int MPI_Iallgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Iallgather");
  return NonBlocking(&r, "allgather", comm, [&] { return AllgatherPart(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); }, request, PMPI_Iallgather, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Iallgatherv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Iallgatherv");
  return NonBlocking(&r, "allgather", comm, [&] { return AllgathervPart(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm); }, request, PMPI_Iallgatherv, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, request);
}

int MPI_Ialltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Ialltoall");
  return NonBlocking(&r, "alltoall", comm, [&] { return AlltoallPart(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); }, request, PMPI_Ialltoall, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, request);
}

int MPI_Ialltoallv(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Ialltoallv");
  return NonBlocking(&r, "alltoall", comm, [&] { return AlltoallvPart(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm); }, request, PMPI_Ialltoallv, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, request);
}

int MPI_Ialltoallw(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Ialltoallw");
  return NonBlocking(&r, "alltoall", comm, [&] { return AlltoallwPart(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm); }, request, PMPI_Ialltoallw, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, request);
}

int MPI_Ireduce_scatter(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Ireduce_scatter");
  return NonBlocking(&r, "reduce_scatter", comm, [&] { return ReduceScatterPart(recvcounts, type, comm); }, request, PMPI_Ireduce_scatter, sendbuf, recvbuf, recvcounts, type, op, comm, request);
}

int MPI_Ireduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Request* request) {
  GS_MPI_REGION(r, "MPI_Ireduce_scatter_block");
  return NonBlocking(&r, "reduce_scatter", comm, [&] { return ReduceScatterBlockPart(recvcount, type, comm); }, request, PMPI_Ireduce_scatter_block, sendbuf, recvbuf, recvcount, type, op, comm, request);
}

#if defined(OMPI_HAVE_MPI_EXT_PCOLLREQ)
// Persistent collectives (Open MPI's MPI-4 preview: the pcollreq extension's MPIX_*_init).
int MPIX_Barrier_init(MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Barrier_init");
  return PersistentInit(&r, "barrier", comm, [&] { return Part{}; }, request, PMPIX_Barrier_init, comm, info, request);
}

int MPIX_Bcast_init(void* buf, int count, MPI_Datatype type, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Bcast_init");
  return PersistentInit(&r, "bcast", comm, [&] { return BcastPart(count, type, root, comm); }, request, PMPIX_Bcast_init, buf, count, type, root, comm, info, request);
}

int MPIX_Reduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Reduce_init");
  return PersistentInit(&r, "reduce", comm, [&] { return ReducePart(count, type, root, comm); }, request, PMPIX_Reduce_init, sendbuf, recvbuf, count, type, op, root, comm, info, request);
}

int MPIX_Allreduce_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Allreduce_init");
  return PersistentInit(&r, "allreduce", comm, [&] { return BothWaysPart(count, type); }, request, PMPIX_Allreduce_init, sendbuf, recvbuf, count, type, op, comm, info, request);
}

int MPIX_Scan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Scan_init");
  return PersistentInit(&r, "scan", comm, [&] { return BothWaysPart(count, type); }, request, PMPIX_Scan_init, sendbuf, recvbuf, count, type, op, comm, info, request);
}

int MPIX_Exscan_init(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Exscan_init");
  return PersistentInit(&r, "scan", comm, [&] { return ExscanPart(count, type, comm); }, request, PMPIX_Exscan_init, sendbuf, recvbuf, count, type, op, comm, info, request);
}

int MPIX_Gather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Gather_init");
  return PersistentInit(&r, "gather", comm, [&] { return GatherPart(sendbuf, sendcount, sendtype, recvcount, recvtype, root, comm); }, request, PMPIX_Gather_init, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request);
}

int MPIX_Gatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Gatherv_init");
  return PersistentInit(&r, "gather", comm, [&] { return GathervPart(sendbuf, sendcount, sendtype, recvcounts, recvtype, root, comm); }, request, PMPIX_Gatherv_init, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root, comm, info, request);
}

int MPIX_Scatter_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Scatter_init");
  return PersistentInit(&r, "scatter", comm, [&] { return ScatterPart(sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm); }, request, PMPIX_Scatter_init, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request);
}

int MPIX_Scatterv_init(const void* sendbuf, const int sendcounts[], const int displs[], MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Scatterv_init");
  return PersistentInit(&r, "scatter", comm, [&] { return ScattervPart(sendcounts, sendtype, recvbuf, recvcount, recvtype, root, comm); }, request, PMPIX_Scatterv_init, sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root, comm, info, request);
}

int MPIX_Allgather_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Allgather_init");
  return PersistentInit(&r, "allgather", comm, [&] { return AllgatherPart(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); }, request, PMPIX_Allgather_init, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
}

int MPIX_Allgatherv_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Allgatherv_init");
  return PersistentInit(&r, "allgather", comm, [&] { return AllgathervPart(sendbuf, sendcount, sendtype, recvcounts, recvtype, comm); }, request, PMPIX_Allgatherv_init, sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, comm, info, request);
}

int MPIX_Alltoall_init(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Alltoall_init");
  return PersistentInit(&r, "alltoall", comm, [&] { return AlltoallPart(sendbuf, sendcount, sendtype, recvcount, recvtype, comm); }, request, PMPIX_Alltoall_init, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm, info, request);
}

int MPIX_Alltoallv_init(const void* sendbuf, const int sendcounts[], const int sdispls[], MPI_Datatype sendtype, void* recvbuf, const int recvcounts[], const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Alltoallv_init");
  return PersistentInit(&r, "alltoall", comm, [&] { return AlltoallvPart(sendbuf, sendcounts, sendtype, recvcounts, recvtype, comm); }, request, PMPIX_Alltoallv_init, sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls, recvtype, comm, info, request);
}

int MPIX_Alltoallw_init(const void* sendbuf, const int sendcounts[], const int sdispls[], const MPI_Datatype sendtypes[], void* recvbuf, const int recvcounts[], const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Alltoallw_init");
  return PersistentInit(&r, "alltoall", comm, [&] { return AlltoallwPart(sendbuf, sendcounts, sendtypes, recvcounts, recvtypes, comm); }, request, PMPIX_Alltoallw_init, sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes, comm, info, request);
}

int MPIX_Reduce_scatter_init(const void* sendbuf, void* recvbuf, const int recvcounts[], MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Reduce_scatter_init");
  return PersistentInit(&r, "reduce_scatter", comm, [&] { return ReduceScatterPart(recvcounts, type, comm); }, request, PMPIX_Reduce_scatter_init, sendbuf, recvbuf, recvcounts, type, op, comm, info, request);
}

int MPIX_Reduce_scatter_block_init(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type, MPI_Op op, MPI_Comm comm, MPI_Info info, MPI_Request* request) {
  GS_MPI_REGION(r, "MPIX_Reduce_scatter_block_init");
  return PersistentInit(&r, "reduce_scatter", comm, [&] { return ReduceScatterBlockPart(recvcount, type, comm); }, request, PMPIX_Reduce_scatter_block_init, sendbuf, recvbuf, recvcount, type, op, comm, info, request);
}

#endif  // OMPI_HAVE_MPI_EXT_PCOLLREQ

}  // extern "C"
