#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(SeedTaskGraphReader, ReadsWhatTheTaskgraphCommandWrites) {
  const char* text =
      "Task_Graph <Identifies a Task Graph file >\n"
      "3 < Total Number of Nodes >\n"
      "2 20 40 80 2 0\n"
      "3 1810 40 160 1 1\n"
      "8 10 40 240 0 2\n"
      "3 < Total Number of Edges >\n"
      "2 3 10\n"
      "2 8 15\n"
      "3 8 10\n";
  Result<TaskDag> g = ReadSeedTaskGraph(text, "Task_Graph");
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(g->id, ElementsAre(2, 3, 8));
  EXPECT_THAT(g->weight, ElementsAre(20, 1810, 10));
  EXPECT_EQ(g->edge_count(), 3u);
  EXPECT_EQ(g->successors(0)[1].cost, 15);
}

TEST(SeedTaskGraphReader, ErrorsNameTheLine) {
  EXPECT_THAT(ReadSeedTaskGraph("Schedule\n", "f"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("f:1: expected the keyword Task_Graph")));
  EXPECT_THAT(ReadSeedTaskGraph("Task_Graph\n1\n2 20 40 80 0\n0\n", "f"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("f:4: the file ends early: expected the number of edges")));
  EXPECT_THAT(ReadSeedTaskGraph("Task_Graph\n1\n2 20 40 80 0 0\n1\n2 5 1\n", "f"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("f:5: edge 1 ends at node 5, which is not defined")));
  EXPECT_THAT(ReadSeedTaskGraph("Task_Graph\n2\n2 20 40 80 0 0\n2 1 40 80 0 0\n0\n", "f"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("f:4: node 2 is defined twice")));
  EXPECT_THAT(ReadSeedTaskGraph("Task_Graph\n1\n2 2x 40 80 0 0\n0\n", "f"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("f:3: expected the execution time of node 2 (a non-negative integer), got '2x'")));
  EXPECT_THAT(ReadSeedTaskGraph("Task_Graph\n1\n2 2 40 80 0 0\n0\nextra\n", "f"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("f:5: expected the end of the file after 0 edges, got 'extra'")));
}

}  // namespace
}  // namespace grainscope
