#include "model/hb_graph.h"

#include <gtest/gtest.h>

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

  // A rooted operation whose root is not a member, and an unknown one: all-to-all.
  EXPECT_EQ(CollectiveFlow::Of(CollectiveOp::kReduce, kNoMember).shape, CollectiveShape::kAllToAll);
  EXPECT_EQ(CollectiveFlow::Of(CollectiveOp::kScan, 0).shape, CollectiveShape::kAllToAll);
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
  EXPECT_EQ(g.flow(b).root, CollectiveFlow::Of(t.collectives(), b).root);
  EXPECT_FALSE(g.end_has_inputs(g.root_member(b)));
}

}  // namespace
}  // namespace grainscope
