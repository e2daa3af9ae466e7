#include "format/one_run.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace grainscope {
namespace {

using ::testing::HasSubstr;

std::vector<std::optional<std::string>> Choose(const std::vector<RankFileFacts>& files) { return ChooseOneRun(files); }

TEST(ChooseOneRun, TheRunWithMostRanksOneFilePerRank) {
  const std::vector<std::optional<std::string>> why = Choose({
      {"a/rank-00000.gst", true, 0, "run B", true},
      {"b/x.gst", true, 0, "run A", false},
      {"b/y.gst", true, 1, "run A", false},
      {"b/z.gst", true, 1, "run A", false},  // rank 1 again
      {"c/old.gst", true, 2, std::nullopt, false},  // names no run
      {"d/notes.gst", false, -1, std::nullopt, false},  // no recorder's rank file
  });
  EXPECT_THAT(why[0].value_or(""), HasSubstr("rank 0 of run B, not of run A"));
  EXPECT_FALSE(why[1]);
  EXPECT_FALSE(why[2]);
  EXPECT_THAT(why[3].value_or(""), HasSubstr("holds rank 1 again (b/y.gst holds it)"));
  EXPECT_THAT(why[4].value_or(""), HasSubstr("names no run beside the files of run A"));
  EXPECT_FALSE(why[5]);
}

TEST(ChooseOneRun, TiesGoToTheRecordersNameThenTheLowestRankThenTheFirstName) {
  // Two runs of two ranks: the one whose rank 0 has the recorder's name is kept.
  auto why = Choose({{"a-0.gst", true, 0, "run A", false},
                     {"a-1.gst", true, 1, "run A", false},
                     {"rank-00000.gst", true, 0, "run B", true},
                     {"rank-00001.gst", true, 1, "run B", true}});
  EXPECT_TRUE(why[0] && why[1]);
  EXPECT_FALSE(why[2] || why[3]);
  // No recorder's names: the run holding the lowest rank, then the first file by name.
  why = Choose({{"x.json", true, 1, "job A", false}, {"y.json", true, 0, "job B", false}});
  EXPECT_TRUE(why[0]);
  EXPECT_FALSE(why[1]);
  why = Choose({{"y.json", true, 0, "job A", false}, {"x.json", true, 0, "job B", false}});
  EXPECT_TRUE(why[0]);
  EXPECT_FALSE(why[1]);
  // A second file of a rank: the recorder's name first.
  why = Choose({{"a.gst", true, 0, "run A", false}, {"rank-00000.gst", true, 0, "run A", true}});
  EXPECT_TRUE(why[0]);
  EXPECT_FALSE(why[1]);
}

TEST(ChooseOneRun, FilesThatNameNoRunAreAllKept) {
  const auto why = Choose({{"a.gst", true, 0, std::nullopt, false}, {"b.gst", true, 1, std::nullopt, false}});
  EXPECT_FALSE(why[0] || why[1]);
}

}  // namespace
}  // namespace grainscope
