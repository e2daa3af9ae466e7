#include "cli/progress.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "base/progress.h"

namespace grainscope::cli {
namespace {

TEST(ProgressTest, FormatsABarWithATotalAndElapsedTimeWithout) {
  EXPECT_EQ(FormatProgress("reading", 512ull << 20, 1024ull << 20, true, 2.04, 200),
            "grainscope: reading [############............]  50%  512.0 MB / 1.0 GB  2.0 s");
  EXPECT_EQ(FormatProgress("critical path", 0, 0, false, 1.5, 200), "grainscope: critical path ...  1.5 s");
  EXPECT_EQ(FormatProgress("critical path", 0, 0, false, 1.5, 12), "grainscope: ");
}

TEST(ProgressTest, ShowsNothingDuringTheFirstSecondThenAtMostTenTimesASecond) {
  ProgressLine line(200);
  EXPECT_EQ(line.Update(0.0, "reading", 0, 100, false), "");
  EXPECT_EQ(line.Update(0.99, "reading", 10, 100, false), "");
  EXPECT_EQ(line.Finish(), "") << "nothing shown, nothing to clear";
  const std::string first = line.Update(1.0, "reading", 50, 100, false);
  ASSERT_EQ(first.substr(0, 1), "\r");
  EXPECT_NE(first.find(" 50%"), std::string::npos) << first;
  EXPECT_EQ(line.Update(1.05, "reading", 60, 100, false), "") << "throttled";
  const std::string second = line.Update(1.1, "analysing", 0, 0, false);
  EXPECT_EQ(second.substr(0, 1), "\r");
  EXPECT_EQ(second.size(), first.size()) << "the shorter line is padded over the longer one";
  const std::string clear = line.Finish();
  EXPECT_EQ(clear, "\r" + std::string(first.size() - 1, ' ') + "\r");
  EXPECT_EQ(line.Finish(), "");
}

TEST(ProgressTest, AdvanceNeverGoesBack) {
  progress::Begin("reading", 10);
  progress::Advance(5);
  progress::Advance(3);
  EXPECT_EQ(progress::Read().done, 5u);
  EXPECT_EQ(progress::Read().total, 10u);
  progress::SetBase(6);
  progress::Advance(2);
  EXPECT_EQ(progress::Read().done, 8u) << "on top of the base";
  progress::Begin("next", 0);
  progress::Advance(1);
  EXPECT_EQ(progress::Read().done, 1u) << "Begin resets the base";
}

TEST(ProgressTest, PrintsNothingWhenNotATerminal) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    ProgressDisplay display(fds[1]);
    EXPECT_FALSE(display.active());
    progress::Begin("reading", 100);
    progress::Advance(50);
  }
  ::close(fds[1]);
  char c;
  EXPECT_EQ(::read(fds[0], &c, 1), 0) << "the pipe stays empty";
  ::close(fds[0]);
}

}  // namespace
}  // namespace grainscope::cli
