#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(JsonTaskGraphReader, ReadsTheTaskgraphCommandsJson) {
  const char* json = R"({"ids_from_grain_ids": true,
    "nodes": [{"id": 2, "time_ns": 20000000, "grain": 1}, {"id": 3, "time_ns": 5}],
    "edges": [{"from": 2, "to": 3, "delay_ns": 7, "message": "arc12"}, {"from": 2, "to": 3, "delay_ns": 1}]})";
  Result<TaskDag> g = ReadJsonTaskGraph(json, "g.json");
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(g->id, ElementsAre(2, 3));
  EXPECT_THAT(g->weight, ElementsAre(20000000, 5));
  EXPECT_EQ(g->successors(0)[0].cost, 8);
  EXPECT_EQ(g->time_unit, "ns");
}

TEST(JsonTaskGraphReader, UnitlessWeightsAndCosts) {
  Result<TaskDag> g = ReadJsonTaskGraph(R"({"nodes": [{"id": 1, "weight": 4}], "edges": []})", "g.json");
  ASSERT_THAT(g, IsOk());
  EXPECT_EQ(g->time_unit, "");
}

TEST(JsonTaskGraphReader, Errors) {
  EXPECT_THAT(ReadJsonTaskGraph("{\n  \"nodes\": [1,\n  ]\n}", "g.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("g.json:3:3: invalid JSON")));
  EXPECT_THAT(ReadJsonTaskGraph("[]", "g.json"), StatusIs(StatusCode::kDataLoss, HasSubstr("expected a JSON object")));
  EXPECT_THAT(ReadJsonTaskGraph(R"({"edges": []})", "g.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("expected an array \"nodes\"")));
  EXPECT_THAT(ReadJsonTaskGraph(R"({"nodes": [{"id": 1, "time_ns": -3}]})", "g.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("g.json: nodes[0].time_ns: expected a non-negative integer, got -3")));
  EXPECT_THAT(ReadJsonTaskGraph(R"({"nodes": [{"id": 1}]})", "g.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("nodes[0]: missing field time_ns or weight")));
  EXPECT_THAT(ReadJsonTaskGraph(R"({"nodes": [{"id": 1, "time_ns": 1}], "edges": [{"from": 1, "to": 2, "delay_ns": 0}]})",
                                "g.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("edges[0].to: no node with id 2")));
  EXPECT_THAT(ReadJsonTaskGraph(R"({"nodes": [{"id": 1, "time_ns": 1}, {"id": 1, "time_ns": 1}]})", "g.json"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("nodes[1]: node id 1 is used twice")));
}

}  // namespace
}  // namespace grainscope
