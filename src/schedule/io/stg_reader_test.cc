#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "schedule/io/readers.h"

namespace grainscope {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Three tasks: 1 and 2 after the entry, 3 after both; the exit after 3. A comment at the end.
constexpr const char* kStg =
    "          3\n"
    "          0          0          0\n"
    "          1          4          1          0\n"
    "          2          5          1          0\n"
    "          3          6          2          1\n"
    "          2\n"  // a predecessor list continued on the next line
    "          4          0          1          3\n"
    "# generator: hand\n";

TEST(StgReader, ReadsTasksAndDropsTheDummyEntryAndExit) {
  Result<TaskDag> g = ReadStg(kStg, "t.stg");
  ASSERT_THAT(g, IsOk());
  EXPECT_THAT(g->id, ElementsAre(1, 2, 3));
  EXPECT_THAT(g->weight, ElementsAre(4, 5, 6));
  EXPECT_EQ(g->edge_count(), 2u);
  EXPECT_EQ(g->predecessors(2).size(), 2u);
  EXPECT_EQ(g->time_unit, "");
}

TEST(StgReader, ErrorsNameTheLineAndWhatWasExpected) {
  EXPECT_THAT(ReadStg("x\n", "t.stg"), StatusIs(StatusCode::kDataLoss, HasSubstr("t.stg:1: expected the number of tasks")));
  EXPECT_THAT(ReadStg("1\n0 0 0\n2 1 1 0\n", "t.stg"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("t.stg:3: expected task id 1 (records in id order), got 2")));
  EXPECT_THAT(ReadStg("1\n0 0 0\n1 3 1 7\n2 0 1 1\n", "t.stg"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("t.stg:3: task 1 names predecessor 7, but ids go from 0 to 2")));
  EXPECT_THAT(ReadStg("1\n0 0 0\n1 3 1 0\n", "t.stg"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("t.stg:3: the file ends early: expected task id 2")));
  EXPECT_THAT(ReadStg("1\n0 0 0\n1 x 1 0\n2 0 1 1\n", "t.stg"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("expected the processing time of task 1 (a non-negative integer), got 'x'")));
  EXPECT_THAT(ReadStg("1\n0 0 0\n1 3 1 0\n2 0 1 1\n9\n", "t.stg"),
              StatusIs(StatusCode::kDataLoss, HasSubstr("t.stg:5: expected the end of the task records")));
  EXPECT_THAT(ReadStg("2\n0 0 0\n1 3 1 2\n2 3 1 1\n3 0 1 2\n", "t.stg"),
              StatusIs(StatusCode::kFailedPrecondition, HasSubstr("cycle")));
}

}  // namespace
}  // namespace grainscope
