#include "analysis/taskgraph/taskgraph.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "format/seedtext/seedtext_reader.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

TEST(TaskGraph, SeedArcsBecomeWeightedEdges) {
  // grain 0 on processor 0 sends 'a' (send call 10..12 ms) to grain 1 on processor 1, whose
  // receive waited from 9 ms: the message needed 2 ms (send begin to arrival), not the 5 ms the
  // two calls lasted (1 ms of that is the receiver waiting for the send to begin).
  const char* text =
      " start 0 0 0\n stop 0 0 10\n sendBegin a 0 10\n sendEnd a 0 12\n"
      " recvBegin a 1 9\n recvEnd a 1 12\n start 1 1 12\n stop 1 1 20\n";
  Result<Trace> t = ReadSeedText(text, "t.txt");
  ASSERT_THAT(t, IsOk());
  Result<TaskGraph> g = BuildTaskGraph(*t);
  ASSERT_THAT(g, IsOk());
  EXPECT_TRUE(g->ids_from_grain_ids);
  ASSERT_EQ(g->nodes.size(), 2u);
  EXPECT_EQ(g->nodes[0].id, 1u);  // grain 0 -> node 1, the seed's numbering
  EXPECT_EQ(g->nodes[0].successors, 1u);
  EXPECT_EQ(g->nodes[1].predecessors, 1u);
  ASSERT_EQ(g->edges.size(), 1u);
  EXPECT_EQ(g->edges[0].from, 1u);
  EXPECT_EQ(g->edges[0].to, 2u);
  EXPECT_EQ(g->edges[0].delay_ns, 2'000'000);
}

// Arc costs (MessageCost): a receiver that waited long is charged the transfer only; one that
// came after the send had ended, both calls (the seed's delay); a self-message what its calls took.
TEST(TaskGraph, ArcCostIsTheMessagesTimeNotTheReceiversWait) {
  const char* text =
      // 'long': the receiver waits 0..100 for a send at 90..91 whose data arrives at 93.
      " start 0 0 0\n stop 0 0 90\n sendBegin long 0 90\n sendEnd long 0 91\n"
      " recvBegin long 1 0\n recvEnd long 1 93\n start 1 1 93\n stop 1 1 100\n"
      // 'late': grain 2 sends 100..102 from inside, grain 3 receives 150..153 (the data waited): 2 + 3.
      " start 0 2 94\n sendBegin late 2 100\n sendEnd late 2 102\n stop 0 2 102\n"
      " recvBegin late 3 150\n recvEnd late 3 153\n start 1 3 153\n stop 1 3 160\n"
      // 'self': grain 3 sends to grain 4 on its own processor, 160..161 and 161..162.
      " sendBegin self 3 160\n sendEnd self 3 161\n recvBegin self 4 161\n recvEnd self 4 162\n"
      " start 1 4 162\n stop 1 4 170\n";
  Result<Trace> t = ReadSeedText(text, "t.txt");
  ASSERT_THAT(t, IsOk());
  Result<TaskGraph> g = BuildTaskGraph(*t);
  ASSERT_THAT(g, IsOk());
  ASSERT_EQ(g->edges.size(), 3u);
  EXPECT_EQ(g->edges[0].from, 1u);  // grain 0 -> grain 1
  EXPECT_EQ(g->edges[0].delay_ns, 3'000'000);
  EXPECT_EQ(g->edges[1].from, 3u);  // grain 2 -> grain 3
  EXPECT_EQ(g->edges[1].delay_ns, 5'000'000);
  EXPECT_EQ(g->edges[2].from, 4u);  // grain 3 -> grain 4, one processor
  EXPECT_EQ(g->edges[2].delay_ns, 2'000'000);
}

// Without grain ids on the messages (an MPI-like trace), a send belongs to the grain around it or
// the last one finished before it; a receive to the grain around it or the next one to start.
TEST(TaskGraph, PositionalAttributionWithoutNamedGrains) {
  TraceBuilder b("test");
  LocationId p0 = b.AddLocation("p0", LocationKind::kProcessor, 0);
  LocationId p1 = b.AddLocation("p1", LocationKind::kProcessor, 1);
  RegionId work = b.AddRegion("work", RegionRole::kGrain, 5);
  RegionId more = b.AddRegion("more", RegionRole::kGrain, 6);
  RegionId send = b.AddRegion("MPI_Send", RegionRole::kPointToPoint, 7);
  RegionId recv = b.AddRegion("MPI_Recv", RegionRole::kPointToPoint, 8);
  MessageInfo info;
  info.sender = p0;
  info.receiver = p1;
  MessageId after = b.AddMessage(info);   // sent after `work` finished
  MessageId inside = b.AddMessage(info);  // sent from inside `more`
  b.Enter(p0, 0, work);
  b.Leave(p0, 10, work);
  b.Enter(p0, 10, send);
  b.Send(p0, 11, after);
  b.Leave(p0, 14, send);
  b.Enter(p0, 20, more);
  b.Send(p0, 25, inside);
  b.Leave(p0, 30, more);
  b.Enter(p1, 0, recv);
  b.Recv(p1, 15, after);
  b.Leave(p1, 16, recv);
  b.Enter(p1, 20, work);
  b.Recv(p1, 26, inside);
  b.Leave(p1, 40, work);
  Result<Trace> t = b.Finish();
  ASSERT_THAT(t, IsOk());
  Result<TaskGraph> g = BuildTaskGraph(*t);
  ASSERT_THAT(g, IsOk());
  // grain 5 ran twice (p0 and p1): nodes are numbered 1..N in (grain id, start) order
  EXPECT_FALSE(g->ids_from_grain_ids);
  ASSERT_EQ(g->nodes.size(), 3u);
  ASSERT_EQ(g->edges.size(), 2u);
  // node 1 = work@p0, node 2 = work@p1, node 3 = more@p0
  EXPECT_EQ(g->edges[0].from, 1u);
  EXPECT_EQ(g->edges[0].to, 2u);
  EXPECT_EQ(g->edges[0].delay_ns, 16 - 10);  // MPI_Send's begin to MPI_Recv's end; the wait 0..10 is not cost
  EXPECT_EQ(g->edges[1].from, 3u);
  EXPECT_EQ(g->edges[1].to, 2u);
  EXPECT_EQ(g->edges[1].delay_ns, 0);  // neither end inside a communication call
}

}  // namespace
}  // namespace grainscope
