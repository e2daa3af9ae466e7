// Auto-detection's one rule, on candidates that give the same answer whatever they see (or look at
// the name only): what ReadTrace and `schedule` both go through.
#include "format/detection.h"

#include <sys/stat.h>

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/file.h"
#include "base/status_matchers.h"
#include "base/test_files.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;

Sniff No(const TraceProbe&) { return Sniff::kNo; }
Sniff Plausible(const TraceProbe&) { return Sniff::kPlausible; }
Sniff Sure(const TraceProbe&) { return Sniff::kSure; }
// Sure of a *.arc name, as a reader of archives by their anchor is.
Sniff SureOfArc(const TraceProbe& probe) { return probe.path.ends_with(".arc") ? Sniff::kSure : Sniff::kNo; }
// Sure of bytes starting with "TEXT".
Sniff SureOfText(const TraceProbe& probe) { return probe.head.starts_with("TEXT") ? Sniff::kSure : Sniff::kNo; }

TEST(MostSure, TakesTheFirstSureElseTheFirstPlausible) {
  const std::string path = "t";
  const TraceProbe probe{path, ""};
  auto most_sure = [&](std::vector<Candidate> candidates) { return MostSure(candidates, probe); };
  EXPECT_EQ(most_sure({{No}, {Plausible}, {Sure}, {Plausible}, {Sure}}), 2u);
  EXPECT_EQ(most_sure({{Plausible}, {No}, {Plausible}}), 0u);
  EXPECT_EQ(most_sure({{No}}), 1u);  // none: the size
  EXPECT_EQ(most_sure({}), 0u);
}

TEST(ReadInputHead, ARegularFilesFirstBytesNothingElse) {
  TempDir dir("detection_test");
  const std::string big = dir / "big.txt";
  ASSERT_TRUE(WriteTestFile(big, std::string(kHeadBytes + 10, 'x')));
  const InputHead file = ReadInputHead(big);
  EXPECT_EQ(file.head.size(), kHeadBytes);
  EXPECT_FALSE(file.stream);
  const std::string small = dir / "small.txt";
  ASSERT_TRUE(WriteTestFile(small, " start 1 0 1\n"));
  EXPECT_EQ(ReadInputHead(small).head, " start 1 0 1\n");
  EXPECT_EQ(ReadInputHead(dir / "missing").head, "");
  const InputHead directory = ReadInputHead(dir / "");
  EXPECT_EQ(directory.head, "");
  EXPECT_FALSE(directory.stream);
  const std::string fifo = dir / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const InputHead pipe = ReadInputHead(fifo);  // not opened: that would block, and eat its bytes
  EXPECT_TRUE(pipe.stream);
  EXPECT_EQ(pipe.head, "");
}

Status NothingTakes(const std::string& path, std::string_view head) {
  return DataLoss(path + ": nothing takes '" + std::string(head.substr(0, 4)) + "'");
}
Status NotADirectory(const std::string& path) { return DataLoss(path + ": not a directory of ours"); }

// A reader of archives by name (paths), then a reader of "TEXT" and a reader of anything (content).
const std::vector<Candidate> kCandidates = {{SureOfArc, true, ".arc"}, {SureOfText}, {Plausible}};
constexpr DetectionRules kRules{"a thing", NothingTakes, NotADirectory};

TEST(Detect, AReaderOfPathsIsChosenBeforeAnythingIsRead) {
  TempDir dir("detection_test");
  Result<Detected> d = Detect(dir / "missing.arc", kCandidates, kRules);  // its reader says what is wrong
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->chosen, 0u);
  EXPECT_EQ(d->content, "");
}

TEST(Detect, AReaderOfContentGetsTheBytesReadOnce) {
  TempDir dir("detection_test");
  const std::string text = dir / "t.txt", other = dir / "o.txt";
  ASSERT_TRUE(WriteTestFile(text, "TEXT and more"));
  ASSERT_TRUE(WriteTestFile(other, "other"));
  Result<Detected> d = Detect(text, kCandidates, kRules);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->chosen, 1u);  // sure beats the plausible one after it
  EXPECT_EQ(d->content, "TEXT and more");
  d = Detect(other, kCandidates, kRules);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->chosen, 2u);
}

TEST(Detect, APipeIsSniffedOnItsFirstBytesOnly) {
  TempDir dir("detection_test");
  auto detect = [](const std::string& p) { return Detect(p, kCandidates, kRules); };
  Result<Detected> d = ReadThroughFifo(dir / "pipe", "TEXT piped", detect);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->chosen, 1u);
  EXPECT_EQ(d->content, "TEXT piped");
  // A reader of paths sure of the first bytes cannot read a pipe.
  const std::vector<Candidate> paths_first = {{SureOfText, true, ".txt"}, {Plausible}};
  EXPECT_THAT(ReadThroughFifo(dir / "pipe2", "TEXT", [&](const std::string& p) { return Detect(p, paths_first, kRules); }),
              StatusIs(StatusCode::kDataLoss,
                       HasSubstr("pipe2: a .txt trace from a pipe or device: the .txt reader maps a file, save it to one")));
}

TEST(Detect, SaysWhatNothingTakesInTheCallersWords) {
  TempDir dir("detection_test");
  const std::string none = dir / "none", empty = dir / "empty";
  ASSERT_TRUE(WriteTestFile(none, "NONE of these"));
  ASSERT_TRUE(WriteTestFile(empty, ""));
  const std::vector<Candidate> strict = {{SureOfArc, true, ".arc"}, {SureOfText}};
  EXPECT_THAT(Detect(none, strict, kRules), StatusIs(StatusCode::kDataLoss, HasSubstr("none: nothing takes 'NONE'")));
  EXPECT_THAT(Detect(empty, strict, kRules),
              StatusIs(StatusCode::kDataLoss, HasSubstr("empty: the file is empty, expected a thing")));
  EXPECT_THAT(Detect(dir / "", strict, kRules), StatusIs(StatusCode::kDataLoss, HasSubstr("not a directory of ours")));
  // Without a message of its own for directories: ReadFile's.
  EXPECT_THAT(Detect(dir / "", strict, DetectionRules{"a thing", NothingTakes}),
              StatusIs(StatusCode::kIoError, HasSubstr("is a directory, expected a file")));
}

TEST(Detect, PathsNeedBytesLeavesAnEmptyOrMissingFileToTheFileError) {
  TempDir dir("detection_test");
  const std::string empty = dir / "empty.arc";
  ASSERT_TRUE(WriteTestFile(empty, ""));
  DetectionRules rules = kRules;
  rules.paths_need_bytes = true;
  EXPECT_THAT(Detect(empty, kCandidates, rules),
              StatusIs(StatusCode::kDataLoss, HasSubstr("empty.arc: the file is empty, expected a thing")));
  EXPECT_THAT(Detect(dir / "missing.arc", kCandidates, rules),
              StatusIs(StatusCode::kIoError, HasSubstr("missing.arc: cannot open")));
  const std::string full = dir / "full.arc";
  ASSERT_TRUE(WriteTestFile(full, "bytes"));
  Result<Detected> d = Detect(full, kCandidates, rules);
  ASSERT_THAT(d, IsOk());
  EXPECT_EQ(d->chosen, 0u);
}

}  // namespace
}  // namespace grainscope
