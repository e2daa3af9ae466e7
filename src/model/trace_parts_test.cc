#include "model/trace_parts.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

// Rank `rank`'s part: a "work" region, one message end on channel "c" (a send on rank 0, a
// receive on rank 1) and its member of the first collective on communicator "w".
TracePart RankPart(int64_t rank, int64_t clock_base) {
  TraceBuilder b("test");
  const LocationId main = b.AddLocation("main", LocationKind::kThread, 0);
  const RegionId work = b.AddRegion("work", RegionRole::kGrain, 1);
  const RegionId call = b.AddRegion("MPI_Allreduce", RegionRole::kCollective, 2);
  MessageInfo info;
  info.name = "c";
  info.bytes = 64;
  const MessageId m = b.AddMessage(info);
  b.Enter(main, 100, work);
  if (rank == 0) {
    b.Send(main, 150, m);
  } else {
    b.Recv(main, 190, m);
  }
  b.Leave(main, 200, work);
  b.Enter(main, 300, call);
  const CommunicatorId own = b.AddCommunicator("w", {});
  const CollectiveId c = b.AddCollective(CollectiveOp::kAllreduce, own, LocationId());
  b.CollBegin(main, 300, c, 8, 8);
  b.CollEnd(main, 400, c);
  b.Leave(main, 400, call);
  b.SetDeriveThreadSync(false);
  Result<Trace> t = b.Finish();
  EXPECT_THAT(t, IsOk());
  TracePart part;
  part.name = "rank file " + std::to_string(rank);
  part.rank = rank;
  part.trace = std::move(*t);
  part.clock = ClockMap{clock_base};
  part.communicators.push_back({"w", "world", {0, 1}});
  part.collectives.push_back({"w", 0, -1});
  return part;
}

TEST(MergeParts, OneLocationPerRankOnOneClockWithMessagesAndCollectivesAcrossParts) {
  std::vector<TracePart> parts;
  parts.push_back(RankPart(0, 0));
  parts.push_back(RankPart(1, -50));  // rank 1's clock runs 50 ns ahead
  MergeOptions options;
  options.format = "merged";
  options.world_communicator = "w";
  Result<Trace> t = MergeParts(std::move(parts), options);
  ASSERT_THAT(t, IsOk());
  ASSERT_EQ(t->locations().size(), 2u);
  EXPECT_EQ(t->str(t->location(LocationId(1)).name), "rank 1");
  EXPECT_EQ(t->location(LocationId(1)).external_id, 1);
  // Regions merged by (name, role): two, not four.
  EXPECT_EQ(t->regions().size(), 2u);
  // Time zero is rank 1's aligned start (-50); every time moved onto the one clock.
  const EventColumns& r1 = t->events(LocationId(1));
  EXPECT_EQ(r1.time[0], 100);  // rank 1's 100 at -50 + 50
  EXPECT_EQ(t->events(LocationId(0)).time[0], 150);
  // The send of part 0 and the receive of part 1 are one message.
  ASSERT_EQ(t->messages().size(), 1u);
  EXPECT_TRUE(t->messages().matched(MessageId(0)));
  EXPECT_EQ(t->messages().bytes[0], 64u);
  EXPECT_EQ(t->diagnostics().Count(Diag::kSendsWithoutReceive), 0u);
  // The two members are one allreduce on the world communicator.
  ASSERT_EQ(t->collectives().size(), 1u);
  EXPECT_EQ(t->collectives().member_count(CollectiveId(0)), 2u);
  ASSERT_EQ(t->communicators().size(), 1u);
  EXPECT_EQ(t->str(t->communicators()[0].name), "world");
  EXPECT_EQ(t->communicators()[0].members.size(), 2u);
}

TEST(MergeParts, SaysWhatHasNoPartner) {
  std::vector<TracePart> parts;
  parts.push_back(RankPart(0, 0));
  parts.back().communicators.clear();  // no part defines "w"
  MergeOptions options;
  options.format = "merged";
  Result<Trace> t = MergeParts(std::move(parts), options);
  ASSERT_THAT(t, IsOk());
  EXPECT_EQ(t->diagnostics().Count(Diag::kSendsWithoutReceive), 1u);
  EXPECT_EQ(t->diagnostics().Count(Diag::kUnknownCommunicators), 1u);
  EXPECT_EQ(t->collectives().size(), 0u);
}

TEST(ClockMap, DriftsLinearlyBetweenItsAnchorsAndIsConstantOutside) {
  const ClockMap c{1000, 100, 300, 40};
  EXPECT_EQ(c(0), 1000);
  EXPECT_EQ(c(100), 1100);
  EXPECT_EQ(c(200), 1220);
  EXPECT_EQ(c(300), 1340);
  EXPECT_EQ(c(400), 1440);
}

}  // namespace
}  // namespace grainscope
