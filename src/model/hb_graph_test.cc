#include "model/hb_graph.h"

#include <gtest/gtest.h>

#include "model/rendezvous.h"
#include "model/trace_builder.h"
#include "model/trace_script.h"

namespace grainscope {
namespace {

TEST(CollectiveFlow, RootedShapesWaitOnTheirRootAndOthersOnEveryone) {
  const CollectiveFlow bcast = CollectiveFlow::Of(CollectiveOp::kBroadcast, 1);
  EXPECT_EQ(bcast.shape, CollectiveShape::kOneToAll);
  EXPECT_FALSE(bcast.EndWaits(1));  // the root does not wait
  EXPECT_TRUE(bcast.EndWaits(0));
  EXPECT_TRUE(bcast.Feeds(1, 0));
  EXPECT_FALSE(bcast.Feeds(0, 2));

  const CollectiveFlow reduce = CollectiveFlow::Of(CollectiveOp::kGather, 0);
  EXPECT_EQ(reduce.shape, CollectiveShape::kAllToOne);
  EXPECT_TRUE(reduce.EndWaits(0));
  EXPECT_FALSE(reduce.EndWaits(1));
  EXPECT_TRUE(reduce.Feeds(2, 0));
  EXPECT_FALSE(reduce.Feeds(0, 2));

  // A rooted operation whose root is not a member, and a prefix without rank positions: all-to-all.
  EXPECT_EQ(CollectiveFlow::Of(CollectiveOp::kReduce, kNoMember).shape, CollectiveShape::kAllToAll);
  EXPECT_EQ(CollectiveFlow::Of(CollectiveOp::kScan, 0).shape, CollectiveShape::kAllToAll);
  EXPECT_EQ(CollectiveFlow::Of(CollectiveOp::kOther, 0).shape, CollectiveShape::kAllToAll);
  // A prefix: the lower positions feed the higher ones' ends; the first waits for no one.
  const uint32_t position[] = {2, 0, 1};  // member row -> position in rank order
  const CollectiveFlow scan = CollectiveFlow::Of(CollectiveOp::kScan, kNoMember, position);
  EXPECT_EQ(scan.shape, CollectiveShape::kPrefix);
  EXPECT_FALSE(scan.EndWaits(1));
  EXPECT_TRUE(scan.EndWaits(0));
  EXPECT_TRUE(scan.Feeds(1, 2));
  EXPECT_TRUE(scan.Feeds(2, 0));
  EXPECT_FALSE(scan.Feeds(0, 1));
  EXPECT_TRUE(CollectiveFlow::Of(CollectiveOp::kBarrier, kNoMember).Feeds(3, 4));
}

TEST(HbGraph, FindsTheMemberEndingAtAnEventAndTheRootRow) {
  TraceScript s(2);
  const CollectiveId b = s.Collective(CollectiveOp::kBroadcast, 1);
  const CollectiveId r = s.Collective(CollectiveOp::kBarrier);
  s.Join(0, b, 0, 5);
  s.Join(1, b, 1, 4);
  s.Join(0, r, 6, 9);
  s.Join(1, r, 6, 8);
  Trace t = s.Finish();
  HbGraph g(t);
  // Location 0: enter 0, begin 1, end 2, leave 3, enter 4, begin 5, end 6, leave 7.
  EXPECT_EQ(g.offset(LocationId(1)), t.flat_offset(LocationId(1)));
  EXPECT_EQ(g.MembersBegunBefore(LocationId(0), 6), 2u);
  const uint32_t m = g.MemberEndingAt(LocationId(0), 6);
  ASSERT_NE(m, kNoMember);
  EXPECT_EQ(g.instance_of(m), r);
  EXPECT_EQ(g.MemberEndingAt(LocationId(0), 5), kNoMember);  // a begin
  EXPECT_EQ(t.collectives().member_location[g.root_member(b)], LocationId(1));
  EXPECT_EQ(g.flow(b).root, g.root_member(b));
  EXPECT_FALSE(g.end_has_inputs(g.root_member(b)));
}

}  // namespace
}  // namespace grainscope

namespace grainscope {
namespace {

// The structure is built once per body: a view of the trace that shares it reads the same one.
TEST(HbGraph, BuiltOncePerBodyAndSharedWithRetimedViews) {
  TraceScript s(2);
  const MessageId m = s.Message(0, 1);
  s.Send(0, m, 1);
  s.Recv(1, m, 0, 2);
  const Trace t = s.Finish();
  const Trace view = t.Copy();  // shares the body, as Retimed views do
  EXPECT_EQ(&t.hb(HbStructure::kAll), &view.hb(HbStructure::kAll));
  const HbGraph g(t);
  EXPECT_EQ(g.point_edge_count(), 1u);
  int seen = 0;
  g.ForEachPointEdge([&](const PointEdge& e) {
    ++seen;
    EXPECT_TRUE(e.message);
    EXPECT_EQ(PointEdgeKindName(e), "message");
    EXPECT_EQ(e.from, LocationId(0));
    EXPECT_EQ(e.to, LocationId(1));
  });
  EXPECT_EQ(seen, 1);
}

// Which sends are rendezvous is decided once, in the model: again under a user's limit, the
// edges of the old limit go and the new limit is what the trace says.
TEST(Rendezvous, DecidedAgainUnderAnotherLimit) {
  TraceScript s(2);
  s.builder().SetEagerLimit(65536, "the MPI library's");
  const MessageId m = s.Message(0, 1, 0, /*bytes=*/1000);
  s.Send(0, m, 0, 9);
  s.Work(1, "compute", 0, 7);
  s.Recv(1, m, 7, 10);
  Trace t = s.Finish();
  EXPECT_EQ(RendezvousSends(t), 0u);
  EXPECT_EQ(RendezvousMessages(t), std::vector<uint8_t>{0});
  Result<Trace> lower = TraceBuilder::WithEagerLimit(std::move(t), 512, "--eager-limit");
  ASSERT_TRUE(lower.ok());
  EXPECT_EQ(RendezvousSends(*lower), 1u);
  EXPECT_EQ(RendezvousMessages(*lower), std::vector<uint8_t>{1});
  ASSERT_TRUE(TraceEagerLimit(*lower).has_value());
  EXPECT_EQ(TraceEagerLimit(*lower)->bytes, 512u);
  EXPECT_EQ(TraceEagerLimit(*lower)->source, "--eager-limit");
  EXPECT_EQ(HbGraph(*lower).incoming().end_count(), 1u);  // the graph sees the new edge
  // A trace that shares its body cannot be changed under the other holder.
  const Trace copy = lower->Copy();
  EXPECT_FALSE(TraceBuilder::WithEagerLimit(copy.Copy(), 70000, "--eager-limit").ok());
}

}  // namespace
}  // namespace grainscope
