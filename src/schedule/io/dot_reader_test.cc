#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(DotReader, ReadsWeightsOfNodesAndEdges) {
  const char* dot =
      "digraph \"g\" {\n"
      "  main.graph [CCR=10.0, \"No of edges\"=2];\n"
      "  3 [Weight=10];\n"
      "  0 [Weight=6];  // entry\n"
      "  0 -> 3 [Weight=34];\n"
      "  /* two edges at once */ 0 -> 3 -> 7 [Weight=2.0]\n"
      "  7 [Weight=1, label=\"seven\\n1 ms\"]\n"
      "}\n";
  Result<TaskDag> g = ReadDotTaskGraph(dot, "g.dot");
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(g->id, ElementsAre(0, 3, 7));  // numeric names: sorted by id
  EXPECT_THAT(g->weight, ElementsAre(6, 10, 1));
  ASSERT_EQ(g->edge_count(), 2u);
  EXPECT_EQ(g->successors(0)[0].cost, 36);  // 34 + 2: repeated edges add up
  EXPECT_EQ(g->merged_edges, 1u);
  EXPECT_EQ(g->successors(1)[0].cost, 2);
}

TEST(DotReader, NamedNodesAndDefaults) {
  const char* dot = "strict digraph { node [Weight=3]; edge [Weight=1]; load -> solve; solve [Weight=8]; }";
  Result<TaskDag> g = ReadDotTaskGraph(dot, "g.dot");
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(g->id, ElementsAre(1, 2));
  EXPECT_THAT(g->name, ElementsAre("load", "solve"));
  EXPECT_THAT(g->weight, ElementsAre(3, 8));
  EXPECT_EQ(g->successors(0)[0].cost, 1);
  EXPECT_EQ(g->Label(1), "solve");
}

TEST(DotReader, ErrorsNameTheLine) {
  EXPECT_THAT(ReadDotTaskGraph("graph { a -- b }", "g.dot"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("g.dot:1: an undirected graph")));
  EXPECT_THAT(ReadDotTaskGraph("digraph {\n a [Weight=1]\n a -> b\n}", "g.dot"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("g.dot:3: node b has no Weight attribute")));
  EXPECT_THAT(ReadDotTaskGraph("digraph {\n a [Weight=-1]\n}", "g.dot"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("g.dot:2: expected a non-negative integer Weight, got '-1'")));
  EXPECT_THAT(ReadDotTaskGraph("digraph {\n a [Weight=1.5]\n}", "g.dot"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("got '1.5'")));
  EXPECT_THAT(ReadDotTaskGraph("digraph {\n a [Weight=1\n", "g.dot"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("g.dot:3: expected an attribute name, got the end of the file")));
  EXPECT_THAT(ReadDotTaskGraph("digraph {\n a [Weight=1]\n", "g.dot"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("the file ends before the closing '}'")));
  EXPECT_THAT(ReadDotTaskGraph("digraph { subgraph x { a } }", "g.dot"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("subgraphs are not supported")));
  EXPECT_THAT(ReadDotTaskGraph("digraph {\n a [label=\"x]\n}", "g.dot"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("g.dot:2: a quoted string is never closed")));
  EXPECT_THAT(ReadDotTaskGraph("digraph { a [Weight=1]; b [Weight=1]; a -> b; b -> a }", "g.dot"),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("cycle (a -> b -> a)")));
}

}  // namespace
}  // namespace grainscope
