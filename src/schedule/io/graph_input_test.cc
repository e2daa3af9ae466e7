#include "schedule/io/graph_input.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(GraphInput, DetectsTheFormatByExtensionThenContent) {
  EXPECT_EQ(DetectGraphFormat("a/rand0000.stg", ""), "stg");
  EXPECT_EQ(DetectGraphFormat("g.DOT", ""), "dot");
  EXPECT_EQ(DetectGraphFormat("g.gv", ""), "dot");
  EXPECT_EQ(DetectGraphFormat("g.json", ""), "taskgraph-json");
  EXPECT_EQ(DetectGraphFormat("Task_Graph", "Task_Graph <Identifies a Task Graph file >\n"), "seed-taskgraph");
  EXPECT_EQ(DetectGraphFormat("g", "  digraph x {"), "dot");
  EXPECT_EQ(DetectGraphFormat("g", "strict digraph {"), "dot");
  EXPECT_EQ(DetectGraphFormat("g", "\n{\"nodes\": []}"), "taskgraph-json");
  EXPECT_EQ(DetectGraphFormat("g", "   50\n    0   0   0\n"), "stg");
  EXPECT_EQ(DetectGraphFormat("trace.txt", " start 1 1 290\n"), "trace");
}

TEST(GraphInput, TheTaskGraphOfATraceInNanoseconds) {
  Result<GraphInput> in = ReadGraphInput(GRAINSCOPE_SOURCE_DIR "/examples/traces/fig4_5.txt");
  ASSERT_THAT(in, IsOk());
  EXPECT_TRUE(in->from_trace);
  EXPECT_EQ(in->format, "seedtext");
  EXPECT_EQ(in->dag.time_unit, "ns");
  EXPECT_THAT(in->dag.id, ElementsAre(2, 3, 4, 5, 6, 7, 8));
  EXPECT_EQ(in->dag.weight[0], 20'000'000);
  EXPECT_EQ(in->dag.edge_count(), 11u);
}

TEST(GraphInput, UnknownFormatsAndMissingFiles) {
  EXPECT_THAT(ReadGraphInput("x", "xml"), StatusIs(StatusCode::kInvalidArgument, HasSubstr("unknown input format 'xml'")));
  EXPECT_THAT(ReadGraphInput("/nonexistent/g.stg"), StatusIs(StatusCode::kIoError, HasSubstr("/nonexistent/g.stg")));
}

}  // namespace
}  // namespace grainscope
