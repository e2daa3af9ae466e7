#include "model/gpu_tracker.h"

#include <tuple>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;

// A host thread and streams 7 and 8 of device 0 (and stream 9 of device 1), with helpers that
// append a slice and hand it to the tracker as a call or as work.
class GpuTrackerTest : public ::testing::Test {
 protected:
  GpuTrackerTest() : b_("test") {
    cpu_ = b_.AddLocation("thread", LocationKind::kThread, 1);
    s7_ = b_.AddLocation("stream 7", LocationKind::kGpuStream, 7);
    s8_ = b_.AddLocation("stream 8", LocationKind::kGpuStream, 8);
    s9_ = b_.AddLocation("stream 9", LocationKind::kGpuStream, 9);
    call_region_ = b_.AddRegion("call", RegionRole::kGpuLaunch, 0);
    kernel_region_ = b_.AddRegion("kernel", RegionRole::kGpuKernel, 1);
  }

  void Call(std::string_view name, int64_t correlation, TimeNs begin, TimeNs end) {
    const uint32_t row = gpu_.AddCall(cpu_, GpuCallOf(name), correlation);
    gpu_.SetCallEnter(row, b_.Enter(cpu_, begin, call_region_), begin);
    gpu_.SetCallLeave(row, b_.Leave(cpu_, end, call_region_), end);
  }
  void Work(LocationId stream, int64_t number, int64_t correlation, TimeNs begin, TimeNs end, bool pageable = false) {
    const int64_t device = stream == s9_ ? 1 : 0;
    const uint32_t row = gpu_.AddWork(stream, device, number, correlation, pageable);
    gpu_.SetWorkEnter(row, b_.Enter(stream, begin, kernel_region_), begin);
    gpu_.SetWorkLeave(row, b_.Leave(stream, end, kernel_region_), end);
  }
  // (kind, from location, from event, to location, to event) of every edge.
  std::vector<std::tuple<DependencyKind, uint32_t, EventIndex, uint32_t, EventIndex>> Edges() {
    gpu_.AddEdges(b_, "t.json");
    Result<Trace> t = b_.Finish();
    EXPECT_THAT(t, IsOk());
    trace_ = std::move(*t);
    std::vector<std::tuple<DependencyKind, uint32_t, EventIndex, uint32_t, EventIndex>> out;
    const DependencyTable& d = trace_.dependencies();
    for (size_t i = 0; i < d.size(); ++i)
      out.emplace_back(d.kind[i], d.from_location[i].value, d.from_event[i], d.to_location[i].value, d.to_event[i]);
    return out;
  }

  static constexpr auto kLaunch = DependencyKind::kGpuLaunch;
  static constexpr auto kSync = DependencyKind::kGpuSync;
  TraceBuilder b_;
  GpuTracker gpu_;
  Trace trace_;
  LocationId cpu_, s7_, s8_, s9_;
  RegionId call_region_, kernel_region_;
};

TEST_F(GpuTrackerTest, LaunchesJoinOnCorrelationIds) {
  Call("cudaLaunchKernel", 1, 0, 10);
  Work(s7_, 7, 1, 5, 100);   // starts before its launch returns: the edge leaves the call's Enter
  Work(s7_, 7, 42, 100, 200);  // no call of correlation 42
  EXPECT_THAT(Edges(), ElementsAre(std::make_tuple(kLaunch, 0u, 0u, 1u, 0u)));
  EXPECT_EQ(trace_.diagnostics().Count(Diag::kGpuWorkWithoutLaunch), 1u);
}

TEST_F(GpuTrackerTest, StreamSyncWaitsForTheWorkEnqueuedBeforeIt) {
  Call("cudaLaunchKernel", 1, 0, 10);
  Call("cudaStreamSynchronize", 2, 20, 150);
  Call("cudaLaunchKernel", 3, 160, 170);  // enqueued after the sync began: not waited for
  Work(s7_, 7, 1, 30, 140);
  Work(s7_, 7, 3, 180, 300);
  gpu_.AddSyncRecord(2, GpuSyncRecord{GpuCall::kStreamSync, 0, 7});
  EXPECT_THAT(Edges(), ElementsAre(std::make_tuple(kLaunch, 0u, 0u, 1u, 0u), std::make_tuple(kLaunch, 0u, 4u, 1u, 2u),
                                   std::make_tuple(kSync, 1u, 1u, 0u, 3u)));
  EXPECT_EQ(trace_.diagnostics().Count(Diag::kGpuSyncGuessed), 0u);
}

TEST_F(GpuTrackerTest, DeviceSyncWaitsForEveryStreamOfItsDevice) {
  Call("cudaLaunchKernel", 1, 0, 10);
  Call("cudaLaunchKernel", 2, 10, 20);
  Call("cudaLaunchKernel", 3, 20, 30);
  Call("cudaDeviceSynchronize", 4, 40, 400);
  Work(s7_, 7, 1, 50, 100);
  Work(s8_, 8, 2, 50, 390);
  Work(s9_, 9, 3, 50, 500);  // another device
  gpu_.AddSyncRecord(4, GpuSyncRecord{GpuCall::kDeviceSync, 0, -1});
  auto edges = Edges();
  ASSERT_EQ(edges.size(), 5u);
  EXPECT_EQ(edges[3], std::make_tuple(kSync, 1u, 1u, 0u, 7u));
  EXPECT_EQ(edges[4], std::make_tuple(kSync, 2u, 1u, 0u, 7u));
}

TEST_F(GpuTrackerTest, StreamWaitEventJoinsTwoStreams) {
  Call("cudaLaunchKernel", 1, 0, 10);     // on stream 7
  Call("cudaEventRecord", 2, 10, 12);     // records stream 7's work so far
  Call("cudaLaunchKernel", 3, 12, 20);    // stream 7 again: after the record, not waited for
  Call("cudaStreamWaitEvent", 4, 20, 22);  // stream 8 waits for the event
  Call("cudaLaunchKernel", 5, 22, 30);    // the first work on stream 8 after the wait
  Work(s7_, 7, 1, 15, 100);
  Work(s7_, 7, 3, 100, 300);
  Work(s8_, 8, 5, 101, 120);
  gpu_.AddSyncRecord(4, GpuSyncRecord{GpuCall::kStreamWaitEvent, 0, 8, 7, 2});
  auto edges = Edges();
  ASSERT_EQ(edges.size(), 4u);
  EXPECT_EQ(edges[3], std::make_tuple(kSync, 1u, 1u, 2u, 0u));  // stream 7's first kernel -> stream 8's
}

TEST_F(GpuTrackerTest, AnUnnamedStreamIsTheThreadsLastLaunchedOneAndCounted) {
  Call("cudaLaunchKernel", 1, 0, 10);
  Call("hipStreamSynchronize", 2, 20, 150);  // HIP: no sync record
  Work(s8_, 8, 1, 30, 140);
  auto edges = Edges();
  ASSERT_EQ(edges.size(), 2u);
  EXPECT_EQ(edges[1], std::make_tuple(kSync, 2u, 1u, 0u, 3u));
  EXPECT_EQ(trace_.diagnostics().Count(Diag::kGpuSyncGuessed), 1u);
}

TEST_F(GpuTrackerTest, APageableCopyTheCallWaitedForIsASyncEdge) {
  Call("cudaMemcpyAsync", 1, 0, 100);  // returned after its copy: it waited
  Call("cudaMemcpyAsync", 2, 110, 120);  // returned before its copy ended: no edge
  Work(s7_, 7, 1, 5, 95, /*pageable=*/true);
  Work(s7_, 7, 2, 115, 150, /*pageable=*/true);
  EXPECT_THAT(Edges(), ElementsAre(std::make_tuple(kLaunch, 0u, 0u, 1u, 0u), std::make_tuple(kSync, 1u, 1u, 0u, 1u),
                                   std::make_tuple(kLaunch, 0u, 2u, 1u, 2u)));
}

TEST(GpuCallOf, NamesCudaAndHipCalls) {
  EXPECT_EQ(GpuCallOf("cudaLaunchKernel"), GpuCall::kLaunch);
  EXPECT_EQ(GpuCallOf("hipExtLaunchKernel"), GpuCall::kLaunch);
  EXPECT_EQ(GpuCallOf("hipMemcpyWithStream"), GpuCall::kBlockingCopy);
  EXPECT_EQ(GpuCallOf("cudaStreamSynchronize"), GpuCall::kStreamSync);
  EXPECT_EQ(GpuCallOf("hipDeviceSynchronize"), GpuCall::kDeviceSync);
  EXPECT_EQ(GpuCallOf("cudaEventSynchronize"), GpuCall::kEventSync);
  EXPECT_EQ(GpuCallOf("hipStreamWaitEvent"), GpuCall::kStreamWaitEvent);
  EXPECT_EQ(GpuCallOf("cudaMalloc"), GpuCall::kOther);
}

}  // namespace
}  // namespace grainscope
