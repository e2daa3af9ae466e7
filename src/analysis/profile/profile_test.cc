#include "analysis/profile/profile.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "format/seedtext/seedtext_reader.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using ::testing::DoubleNear;
using ::testing::HasSubstr;

// Figure 4.5 of the seed: processor 1 ran grains 1,3,4,5,7, processor 2 grains 2,6 (ms).
constexpr std::string_view kFigure45 =
    " start 1 1 290\n stop 1 1 310\n start 1 3 350\n start 2 2 590\n stop 1 3 2160\n"
    " start 1 4 2170\n stop 2 2 2400\n start 2 6 2410\n stop 1 4 3960\n start 1 5 3980\n"
    " stop 2 6 4220\n stop 1 5 5780\n start 1 7 5810\n stop 1 7 5820\n";

TEST(ExecutionProfile, Figure45OfTheSeed) {
  Result<Trace> t = ReadSeedText(kFigure45, "fig.txt");
  ASSERT_THAT(t, IsOk());
  Result<ExecutionProfile> p = ComputeProfile(*t);
  ASSERT_THAT(p, IsOk());
  EXPECT_EQ(p->total_ns, 5'820'000'000);
  EXPECT_EQ(p->busy_ns, 9'050'000'000);
  EXPECT_EQ(p->first_start_ns, 290'000'000);
  EXPECT_DOUBLE_EQ(p->speedup, 9050.0 / 5820.0);
  EXPECT_DOUBLE_EQ(p->utilization, 9050.0 / (5820.0 * 2));
  EXPECT_DOUBLE_EQ(p->corrected_speedup, 9050.0 / (5820.0 - 290.0));
  ASSERT_EQ(p->processors.size(), 2u);
  EXPECT_THAT(p->processors[0].utilization, DoubleNear(0.933, 0.0005));
  EXPECT_THAT(p->processors[1].utilization, DoubleNear(0.622, 0.0005));
  const auto& grains = p->processors[0].grains;
  ASSERT_EQ(grains.size(), 5u);
  std::vector<int64_t> ids;
  for (const GrainShare& g : grains) ids.push_back(t->region(g.grain.region).external_id);
  EXPECT_THAT(ids, ::testing::ElementsAre(1, 3, 4, 5, 7));
  EXPECT_THAT(grains[1].fraction, DoubleNear(0.311, 0.0005));
}

// A location that ran no grain (a thread that only sent a message) is no processor of the grain
// view: it would appear at 0 % and halve the utilisation (issue 17, item 4).
TEST(ExecutionProfile, LocationsWithoutGrainsAreNoProcessors) {
  TraceBuilder b("test");
  LocationId p0 = b.AddLocation("p0", LocationKind::kProcessor, 0);
  LocationId sender = b.AddLocation("sender", LocationKind::kThread, 1);
  RegionId g = b.AddRegion("g", RegionRole::kGrain, 0);
  MessageInfo m;
  m.sender = sender;
  m.receiver = p0;
  const MessageId id = b.AddMessage(m);
  b.Send(sender, 0, id);
  b.Recv(p0, 0, id);
  b.Enter(p0, 0, g);
  b.Leave(p0, 100, g);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  Result<ExecutionProfile> p = ComputeProfile(*t);
  ASSERT_THAT(p, IsOk());
  EXPECT_DOUBLE_EQ(p->speedup, 1.0);
  EXPECT_DOUBLE_EQ(p->utilization, 1.0);
  ASSERT_EQ(p->processors.size(), 1u);
  EXPECT_EQ(p->processors[0].location, p0);
  EXPECT_EQ(p->locations_without_grains, 1u);
}

TEST(ExecutionProfile, OutermostRegionsStandInForGrains) {
  // No kGrain regions (a code-region trace): outermost non-communication regions are the grains.
  TraceBuilder b("test");
  LocationId p0 = b.AddLocation("rank 0", LocationKind::kRank, 0);
  RegionId main_r = b.AddRegion("main", RegionRole::kFunction, 0);
  RegionId inner = b.AddRegion("inner", RegionRole::kFunction, 1);
  RegionId send = b.AddRegion("MPI_Send", RegionRole::kPointToPoint, 2);
  b.Enter(p0, 0, send);
  b.Leave(p0, 10, send);
  b.Enter(p0, 10, main_r);
  b.Enter(p0, 20, inner);
  b.Leave(p0, 30, inner);
  b.Leave(p0, 60, main_r);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  std::vector<GrainInstance> grains = CollectGrains(*t);
  ASSERT_EQ(grains.size(), 1u);
  EXPECT_EQ(grains[0].region, main_r);
  EXPECT_EQ(grains[0].duration(), 50);
}

TEST(ExecutionProfile, NoGrainsIsAnError) {
  TraceBuilder b("test");
  b.AddLocation("p0", LocationKind::kProcessor, 0);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  EXPECT_THAT(ComputeProfile(*t), StatusIs(StatusCode::kFailedPrecondition, HasSubstr("no grains")));
}

// 200 grains of `grain_ns` recorded with `clock`: the plain TSC's tiny grains get the note
// (analysis/accuracy/short_grains.h), the ordered clock's and long grains do not.
Result<ExecutionProfile> ProfileOfGrains(std::string_view clock, TimeNs grain_ns) {
  TraceBuilder b("test");
  LocationId p0 = b.AddLocation("p0", LocationKind::kThread, 0);
  RegionId g = b.AddRegion("tiny", RegionRole::kGrain, 1);
  for (TimeNs i = 0; i < 200; ++i) {
    b.Enter(p0, i * 2 * grain_ns, g);
    b.Leave(p0, i * 2 * grain_ns + grain_ns, g);
  }
  b.AddMetadata("clock", clock);
  Result<Trace> t = b.Finish();
  if (!t.ok()) return t.status();
  return ComputeProfile(*t);
}

TEST(ExecutionProfile, NotesTinyGrainsUnderThePlainTsc) {
  Result<ExecutionProfile> p = ProfileOfGrains("tsc", 60);
  ASSERT_THAT(p, IsOk());
  ASSERT_EQ(p->notes.size(), 1u);
  EXPECT_THAT(p->notes[0], HasSubstr("region 'tiny' lasts 60 ns on average"));
  Result<ExecutionProfile> ordered = ProfileOfGrains("tsc-ordered", 60);
  ASSERT_THAT(ordered, IsOk());
  EXPECT_TRUE(ordered->notes.empty());
  Result<ExecutionProfile> long_grains = ProfileOfGrains("tsc", 5000);
  ASSERT_THAT(long_grains, IsOk());
  EXPECT_TRUE(long_grains->notes.empty());
}

}  // namespace
}  // namespace grainscope
