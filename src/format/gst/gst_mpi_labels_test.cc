#include "format/gst/gst_mpi_labels.h"

#include <gtest/gtest.h>

namespace grainscope::gst {
namespace {

TEST(MpiLabels, ParsesWhatTheWrapperWrites) {
  auto rank = ParseMpiRank("mpi.rank 2 4");
  ASSERT_TRUE(rank);
  EXPECT_EQ(rank->rank, 2);
  EXPECT_EQ(rank->size, 4);
  EXPECT_FALSE(rank->run);  // older files
  auto with_run = ParseMpiRank("mpi.rank 2 4 5be1f0c29a7d3e41");
  ASSERT_TRUE(with_run);
  EXPECT_EQ(with_run->run, 0x5be1f0c29a7d3e41u);
  EXPECT_FALSE(ParseMpiRank("mpi.rank 2 4 notahexid"));

  auto comm = ParseMpiComm("mpi.comm w.0.1 1,3-5,9");
  ASSERT_TRUE(comm);
  EXPECT_EQ(comm->id, "w.0.1");
  EXPECT_EQ(comm->members, (std::vector<int>{1, 3, 4, 5, 9}));

  auto clock = ParseMpiClock("mpi.clock finalize -1520 81234567890 4100 -1520");
  ASSERT_TRUE(clock);
  EXPECT_TRUE(clock->finalize);
  EXPECT_EQ(clock->offset_ns, -1520);
  EXPECT_EQ(clock->monotonic_ns, 81234567890);

  auto coll = ParseMpiColl("mpi.coll bcast w.0.1 1 16 0");
  ASSERT_TRUE(coll);
  EXPECT_EQ(coll->op, "bcast");
  EXPECT_EQ(coll->comm, "w.0.1");
  EXPECT_EQ(coll->root, 1);
  EXPECT_EQ(coll->sent, 16u);
  EXPECT_EQ(coll->received, 0u);
  EXPECT_EQ(coll->slot, 0u);

  auto icoll = ParseMpiColl("mpi.icoll allreduce w -1 8 8 3");
  ASSERT_TRUE(icoll);
  EXPECT_EQ(icoll->op, "allreduce");
  EXPECT_EQ(icoll->sent, 8u);
  EXPECT_EQ(icoll->slot, 3u);
  EXPECT_EQ(ParseMpiCollEnd("mpi.icoll_end 3"), 3u);

  auto msg = ParseMpiMessageName("mpi.msg w 0 3 -7");
  ASSERT_TRUE(msg);
  EXPECT_EQ(msg->comm, "w");
  EXPECT_EQ(msg->sender, 0);
  EXPECT_EQ(msg->receiver, 3);
  EXPECT_EQ(msg->tag, -7);
}

TEST(MpiLabels, RejectsOtherText) {
  EXPECT_FALSE(ParseMpiRank("mpi.rank two 4"));
  EXPECT_FALSE(ParseMpiComm("mpi.comm w 3-1"));
  EXPECT_FALSE(ParseMpiComm("mpi.comm w"));
  EXPECT_FALSE(ParseMpiClock("mpi.clock start 0 1"));
  EXPECT_FALSE(ParseMpiColl("mpi.coll barrier w -1 0"));
  EXPECT_FALSE(ParseMpiColl("mpi.coll barrier w -1 0 0 1"));   // a slot on a blocking one
  EXPECT_FALSE(ParseMpiColl("mpi.icoll barrier w -1 0 0 0"));  // slots count from 1
  EXPECT_FALSE(ParseMpiCollEnd("mpi.icoll_end"));
  EXPECT_FALSE(ParseMpiCollEnd("mpi.icoll_end 0"));
  EXPECT_FALSE(ParseMpiMessageName("result"));
  EXPECT_FALSE(ParseMpiMessageName("mpi.msg w 0 1 5 extra"));
}

}  // namespace
}  // namespace grainscope::gst
