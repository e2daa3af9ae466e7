#include "analysis/regions/gpu_time.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace grainscope {
namespace {

// A rank's thread launching on two streams, times in ns, span [0, 100]:
//   thread    cudaLaunchKernel [0,4] and [5,8] (launches), an annotation [20,30] around nothing
//   stream 7  gemm [10,40], an annotation [50,80] holding gemm [50,60] and a memcpy [60,70]
//   stream 9  nccl [30,55] (communication), nccl [90,100]
// Busy: the union [10,40]+[30,55]+[50,70]+[90,100] = [10,70]+[90,100] = 70 of the span's 100.
// Computation [10,40]+[50,70] = 50; communication [30,55]+[90,100] = 35; overlapped [30,40]+[50,55] = 15.
Trace TwoStreams() {
  TraceBuilder b("test");
  const LocationId cpu = b.AddLocation("thread 1", LocationKind::kThread, 1);
  const LocationId s7 = b.AddLocation("stream 7", LocationKind::kGpuStream, 7);
  const LocationId s9 = b.AddLocation("stream 9", LocationKind::kGpuStream, 9);
  b.SetLocationGroup(s7, cpu.value);
  b.SetLocationGroup(s9, cpu.value);
  const RegionId launch = b.AddRegion("cudaLaunchKernel", RegionRole::kGpuLaunch, 0);
  const RegionId note = b.AddRegion("## step ##", RegionRole::kFunction, 1);
  const RegionId gemm = b.AddRegion("gemm", RegionRole::kGpuKernel, 2);
  const RegionId copy = b.AddRegion("Memcpy DtoD", RegionRole::kGpuMemcpy, 3);
  const RegionId nccl = b.AddRegion("ncclKernel_AllReduce", RegionRole::kCommCollective, 4);
  b.Enter(cpu, 0, launch);
  b.Leave(cpu, 4, launch);
  b.Enter(cpu, 5, launch);
  b.Leave(cpu, 8, launch);
  b.Enter(cpu, 20, note);
  b.Leave(cpu, 30, note);
  b.Enter(s7, 10, gemm);
  b.Leave(s7, 40, gemm);
  b.Enter(s7, 50, note);
  b.Enter(s7, 50, gemm);
  b.Leave(s7, 60, gemm);
  b.Enter(s7, 60, copy);
  b.Leave(s7, 70, copy);
  b.Leave(s7, 80, note);
  b.Enter(s9, 30, nccl);
  b.Leave(s9, 55, nccl);
  b.Enter(s9, 90, nccl);
  b.Leave(s9, 100, nccl);
  return *b.Finish();
}

TEST(GpuTime, SplitsRanksAndStreamsAndCountsOverlapOnce) {
  const Trace t = TwoStreams();
  const GpuTime g = ComputeGpuTime(t);
  EXPECT_EQ(g.span_ns, 100);
  ASSERT_EQ(g.streams.size(), 2u);
  EXPECT_EQ(g.streams[0].compute_ns, 40);
  EXPECT_EQ(g.streams[0].copy_ns, 10);
  EXPECT_EQ(g.streams[0].communication_ns, 0);
  EXPECT_EQ(g.streams[1].communication_ns, 35);
  ASSERT_EQ(g.ranks.size(), 1u);
  const GpuRankTime& r = g.ranks[0];
  EXPECT_EQ(r.process, LocationId(0));
  EXPECT_EQ(r.streams, 2u);
  EXPECT_EQ(r.busy_ns, 70);
  EXPECT_EQ(r.compute_ns, 50);
  EXPECT_EQ(r.communication_ns, 35);
  EXPECT_EQ(r.overlapped_ns, 15);
  EXPECT_EQ(r.exposed_ns(), 20);
  EXPECT_EQ(r.idle_ns, 30);
  EXPECT_EQ(r.launches, 2u);
  EXPECT_EQ(r.launch_ns, 7);
  EXPECT_EQ(g.work_ns, 85);
  ASSERT_EQ(g.kernels.size(), 3u);  // the annotation is no work
  EXPECT_EQ(t.str(t.region(g.kernels[0].region).name), "gemm");
  EXPECT_EQ(g.kernels[0].count, 2u);
  EXPECT_EQ(g.kernels[0].total_ns, 40);
  EXPECT_EQ(g.kernels[0].max_ns, 30);
  EXPECT_EQ(t.str(t.region(g.kernels[1].region).name), "ncclKernel_AllReduce");
}

TEST(GpuTime, EmptyWithoutStreams) {
  TraceBuilder b("test");
  const LocationId cpu = b.AddLocation("thread 1", LocationKind::kThread, 1);
  const RegionId f = b.AddRegion("f", RegionRole::kFunction, 0);
  b.Enter(cpu, 0, f);
  b.Leave(cpu, 10, f);
  EXPECT_TRUE(ComputeGpuTime(*b.Finish()).empty());
}

}  // namespace
}  // namespace grainscope
