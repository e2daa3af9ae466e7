#include "analysis/regions/straggler.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

// Three ranks computing 100, 300 and 200 ns, then idle to 400; rank 1 also has a GPU stream
// (not counted, not scaled).
Trace ThreeRanks() {
  TraceBuilder b("test");
  const RegionId work = b.AddRegion("work", RegionRole::kFunction, 0);
  const RegionId kernel = b.AddRegion("k", RegionRole::kGpuKernel, 1);
  const TimeNs ends[] = {100, 300, 200};
  for (int r = 0; r < 3; ++r) {
    const LocationId l = b.AddLocation("rank " + std::to_string(r), LocationKind::kRank, r);
    b.Enter(l, 0, work);
    b.Leave(l, ends[r], work);
  }
  const LocationId s = b.AddLocation("rank 1 stream 7", LocationKind::kGpuStream, 7);
  b.SetLocationGroup(s, 1);
  b.Enter(s, 0, kernel);
  b.Leave(s, 400, kernel);
  return *b.Finish();
}

TEST(Straggler, ScalesTheRankToTheOthersMedian) {
  const Trace t = ThreeRanks();
  Result<StragglerPlan> p = PlanUnstraggle(t, "rank 1 stream 7");  // any location of the rank
  ASSERT_THAT(p, IsOk());
  EXPECT_EQ(p->process, LocationId(1));
  EXPECT_EQ(p->computation_ns, 300);
  EXPECT_EQ(p->median_ns, 150);  // of 100 and 200
  EXPECT_DOUBLE_EQ(p->factor, 2.0);
  EXPECT_THAT(p->locations, ::testing::ElementsAre(LocationId(1)));  // the stream keeps its time
  Result<StragglerPlan> fast = PlanUnstraggle(t, "0");  // by external id; below the median
  ASSERT_THAT(fast, IsOk());
  EXPECT_DOUBLE_EQ(fast->factor, 1.0);
  EXPECT_THAT(PlanUnstraggle(t, "rank 9"), StatusIs(StatusCode::kNotFound, ::testing::HasSubstr("rank 9")));
}

}  // namespace
}  // namespace grainscope
