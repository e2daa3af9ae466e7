#include "model/region_roles.h"

#include <set>
#include <string>

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace grainscope {
namespace {

RegionRole Known(std::string_view name) {
  std::optional<CallRole> r = KnownCallRole(name);
  return r ? r->role : RegionRole::kFunction;
}

TEST(RegionRoles, NamesAreDistinctAndParseBack) {
  std::set<std::string_view> names;
  for (RegionRole r : AllRegionRoles()) {
    EXPECT_TRUE(names.insert(RegionRoleName(r)).second) << RegionRoleName(r);
    RegionRole parsed = RegionRole::kOther;
    ASSERT_TRUE(ParseRegionRole(RegionRoleName(r), &parsed));
    EXPECT_EQ(parsed, r);
  }
  EXPECT_EQ(names.size(), static_cast<size_t>(kRegionRoleCount));
  RegionRole untouched = RegionRole::kIo;
  EXPECT_FALSE(ParseRegionRole("cuda_runtime", &untouched));
  EXPECT_EQ(untouched, RegionRole::kIo);
}

TEST(RegionRoles, MpiCallsByKind) {
  EXPECT_EQ(Known("MPI_Send"), RegionRole::kPointToPoint);
  EXPECT_EQ(Known("MPI_Irecv"), RegionRole::kPointToPoint);
  EXPECT_EQ(Known("MPI_Sendrecv_replace"), RegionRole::kPointToPoint);
  EXPECT_EQ(Known("MPI_Start"), RegionRole::kPointToPoint);
  EXPECT_EQ(Known("MPI_Allreduce"), RegionRole::kCollective);
  EXPECT_EQ(Known("MPI_Iallreduce"), RegionRole::kCollective);
  EXPECT_EQ(Known("MPI_Allreduce_init"), RegionRole::kCollective);  // MPI 4 persistent
  EXPECT_EQ(Known("MPI_Ineighbor_alltoallv"), RegionRole::kCollective);
  EXPECT_EQ(Known("MPI_Exscan"), RegionRole::kCollective);
  EXPECT_EQ(Known("MPI_Barrier"), RegionRole::kBarrier);
  EXPECT_EQ(Known("MPI_Ibarrier"), RegionRole::kBarrier);
  EXPECT_EQ(Known("MPI_Waitall"), RegionRole::kWait);
  EXPECT_EQ(Known("MPI_Testsome"), RegionRole::kWait);
  EXPECT_EQ(Known("MPI_Put"), RegionRole::kOneSided);
  EXPECT_EQ(Known("MPI_Win_lock_all"), RegionRole::kOneSided);
  EXPECT_EQ(Known("MPI_Win_fence"), RegionRole::kCollective);
  EXPECT_EQ(Known("MPI_Init_thread"), RegionRole::kInitFinalize);
  EXPECT_EQ(Known("MPI_Finalize"), RegionRole::kInitFinalize);
  EXPECT_EQ(Known("MPI_Comm_split"), RegionRole::kMpiOther);
  EXPECT_EQ(Known("MPI_Comm_rank"), RegionRole::kMpiOther);
  EXPECT_EQ(Known("MPI_Send_c"), RegionRole::kPointToPoint);  // MPI 4 large count
  EXPECT_TRUE(KnownCallRole("MPI_Ssend")->synchronous_send);
  EXPECT_TRUE(KnownCallRole("MPI_Issend")->synchronous_send);
  EXPECT_FALSE(KnownCallRole("MPI_Send")->synchronous_send);
  EXPECT_FALSE(KnownCallRole("MPI_Isend")->synchronous_send);
}

TEST(RegionRoles, GpuThreadOpenMpAndIoCalls) {
  EXPECT_EQ(Known("cudaLaunchKernel"), RegionRole::kGpuLaunch);
  EXPECT_EQ(Known("hipLaunchKernel"), RegionRole::kGpuLaunch);
  EXPECT_EQ(Known("cudaMemcpyAsync"), RegionRole::kGpuLaunch);
  EXPECT_EQ(Known("cudaDeviceSynchronize"), RegionRole::kDeviceSync);
  EXPECT_EQ(Known("cudaStreamSynchronize"), RegionRole::kDeviceSync);
  EXPECT_EQ(Known("hipEventSynchronize"), RegionRole::kDeviceSync);
  EXPECT_EQ(Known("ncclKernel_AllReduce_RING_LL_Sum_float"), RegionRole::kCommCollective);
  EXPECT_EQ(Known("ncclDevKernel_AllGather_RING_LL"), RegionRole::kCommCollective);
  EXPECT_EQ(Known("pthread_mutex_lock"), RegionRole::kThreadSync);
  EXPECT_EQ(Known("pthread_join"), RegionRole::kThreadSync);
  EXPECT_EQ(Known("omp parallel"), RegionRole::kOpenMp);
  EXPECT_EQ(Known("!$omp parallel @bt.f:12"), RegionRole::kOpenMp);
  EXPECT_EQ(Known("fwrite"), RegionRole::kIo);
  EXPECT_FALSE(KnownCallRole("compute_rhs").has_value());
  EXPECT_FALSE(KnownCallRole("void at::native::vectorized_elementwise_kernel<4>").has_value());
  EXPECT_FALSE(KnownCallRole("").has_value());
}

TEST(RegionRoles, ResolveKeepsWhatTheFormatKnowsBetter) {
  // The name of a known call says more than a generic role.
  EXPECT_EQ(ResolveRegionRole(RegionRole::kFunction, "MPI_Wait").role, RegionRole::kWait);
  EXPECT_EQ(ResolveRegionRole(RegionRole::kPointToPoint, "MPI_Comm_dup").role, RegionRole::kMpiOther);
  EXPECT_EQ(ResolveRegionRole(RegionRole::kOther, "MPI_Init").role, RegionRole::kInitFinalize);
  EXPECT_EQ(ResolveRegionRole(RegionRole::kGpuKernel, "ncclKernel_Broadcast").role, RegionRole::kCommCollective);
  // A barrier the format marks as a collective, whatever its library.
  EXPECT_EQ(ResolveRegionRole(RegionRole::kCollective, "!$omp implicit barrier @x.f:3").role, RegionRole::kBarrier);
  EXPECT_EQ(ResolveRegionRole(RegionRole::kCollective, "my_Barrier").role, RegionRole::kBarrier);
  EXPECT_EQ(ResolveRegionRole(RegionRole::kBarrier, "!$omp barrier").role, RegionRole::kBarrier);
  // Not a collective by the format: an OpenMP construct, waiting only where sync events say so.
  EXPECT_EQ(ResolveRegionRole(RegionRole::kFunction, "omp barrier").role, RegionRole::kOpenMp);
  // Unknown names keep the format's role; a grain is a grain.
  EXPECT_EQ(ResolveRegionRole(RegionRole::kGpuKernel, "volta_sgemm_128x64_nn").role, RegionRole::kGpuKernel);
  EXPECT_EQ(ResolveRegionRole(RegionRole::kWait, "my_wait").role, RegionRole::kWait);
  EXPECT_EQ(ResolveRegionRole(RegionRole::kGrain, "MPI_Send").role, RegionRole::kGrain);
}

TEST(RegionRoles, ResolvingIsIdempotent) {
  // Readers that re-read a written trace resolve again: the roles must not move.
  for (RegionRole declared : AllRegionRoles()) {
    for (std::string_view name : {"MPI_Send", "MPI_Barrier", "omp barrier", "!$omp implicit barrier", "x_barrier",
                                  "ncclKernel_AllReduce", "cudaLaunchKernel", "main", "MPI_Ssend"}) {
      const CallRole once = ResolveRegionRole(declared, name);
      const CallRole twice = ResolveRegionRole(once.role, name);
      EXPECT_EQ(twice.role, once.role) << RegionRoleName(declared) << " " << name;
      EXPECT_EQ(twice.synchronous_send, once.synchronous_send);
    }
  }
}

TEST(RegionRoles, TheBuilderResolvesEveryReadersRegions) {
  TraceBuilder b("test");
  const LocationId l = b.AddLocation("rank 0", LocationKind::kRank, 0);
  const RegionId send = b.AddRegion("MPI_Ssend", RegionRole::kPointToPoint, 0);
  const RegionId wait = b.AddRegion("MPI_Waitall", RegionRole::kFunction, 1);
  b.Enter(l, 0, send);
  b.Leave(l, 1, send);
  b.Enter(l, 2, wait);
  b.Leave(l, 3, wait);
  Result<Trace> t = b.Finish();
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->region(send).role, RegionRole::kPointToPoint);
  EXPECT_TRUE(t->region(send).synchronous_send);
  EXPECT_EQ(t->region(wait).role, RegionRole::kWait);
  EXPECT_FALSE(t->region(wait).synchronous_send);
}

}  // namespace
}  // namespace grainscope
