#include "base/output_target.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "base/file.h"
#include "base/status_matchers.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class OutputTargetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gs_output_target_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string Path(const std::string& name) const { return dir_ + "/" + name; }
  void Make(const std::string& name, const std::string& content) { ASSERT_THAT(WriteNewFile(Path(name), content), IsOk()); }
  std::string Content(const std::string& name) const { return ReadFile(Path(name)).value(); }

  // Every path under the test directory, relative, directories with a trailing '/'.
  std::set<std::string> Tree() const {
    std::set<std::string> out;
    for (const auto& e : fs::recursive_directory_iterator(dir_)) {
      out.insert(e.path().lexically_relative(dir_).string() + (e.is_directory() && !e.is_symlink() ? "/" : ""));
    }
    return out;
  }

  std::string dir_;
};

// A directory output that recognises "part-N" files only, as a .gst rank directory does.
OutputPart DirectoryPart(const std::string& path) {
  return OutputPart{path, nullptr, [](std::string_view name) { return name.starts_with("part-"); }};
}

TEST_F(OutputTargetTest, WritesANewFileAndLeavesNothingElse) {
  ASSERT_THAT(WriteOutputFile(Path("out.txt"), "hello\n", {}), IsOk());
  EXPECT_EQ(Content("out.txt"), "hello\n");
  EXPECT_THAT(Tree(), ElementsAre("out.txt"));
}

// A streamed output goes out while it is written: the sink never holds much more than kDrainBytes,
// the file gets every byte, and a writer's error leaves nothing behind, not even a replaced file.
TEST_F(OutputTargetTest, AStreamedOutputIsWrittenAsItGrowsAndNotLeftHalfWritten) {
  const std::string line(1000, 'x');
  size_t most_held = 0;
  auto write = [&](size_t lines, Status end) {
    return [&, lines, end](TextSink& out) {
      for (size_t i = 0; i < lines; ++i) {
        out.text() += line + "\n";
        out.Step();
        most_held = std::max(most_held, out.text().size());
      }
      return end;
    };
  };
  ASSERT_THAT(WriteOutputStream(Path("out.json"), write(5000, OkStatus()), {}), IsOk());
  EXPECT_EQ(Content("out.json").size(), 5000 * 1001u);
  EXPECT_EQ(Content("out.json").substr(0, 1001), line + "\n");
  EXPECT_LT(most_held, TextSink::kDrainBytes + 1001);
  EXPECT_THAT(WriteOutputStream(Path("out.json"), write(3000, InvalidArgument("stopped")), {.force = true}),
              StatusIs(StatusCode::kInvalidArgument, "stopped"));
  EXPECT_EQ(Content("out.json").size(), 5000 * 1001u);
  EXPECT_THAT(WriteOutputStream(Path("new.json"), write(3000, InvalidArgument("stopped")), {}),
              StatusIs(StatusCode::kInvalidArgument, "stopped"));
  EXPECT_THAT(Tree(), ElementsAre("out.json"));
}

// A sink into a string keeps everything; one whose writes fail says so once and names its output.
TEST(TextSink, CollectsIntoAStringOrReportsTheFirstFailedWrite) {
  std::string whole = "a";
  TextSink collect(whole);
  collect.text() += std::string(TextSink::kDrainBytes + 5, 'b');
  collect.Step();
  EXPECT_THAT(collect.Close(), IsOk());
  EXPECT_EQ(whole.size(), TextSink::kDrainBytes + 6);
  const int fd = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(fd, 0);
  TextSink broken(fd, "the report");
  broken.text() += std::string(TextSink::kDrainBytes, 'c');
  broken.Step();
  broken.text() += "more";
  EXPECT_THAT(broken.Close(), StatusIs(StatusCode::kIoError, HasSubstr("the report: write failed")));
  ::close(fd);
}

// Pieces formatted on several threads arrive in index order: the same bytes as on one thread.
TEST(TextSink, AppendInOrderWritesTheSameBytesOnAnyNumberOfThreads) {
  auto piece = [](size_t i, std::string& text) { text += std::to_string(i * 7919 % 1000003) + (i % 3 ? "," : ",\n"); };
  std::string one, three;
  TextSink a(one), b(three);
  AppendInOrder(a, 100000, 1, piece);
  AppendInOrder(b, 100000, 3, piece);
  EXPECT_EQ(one.size(), three.size());
  EXPECT_TRUE(one == three);
  EXPECT_TRUE(one.starts_with("0,\n7919,15838,23757,\n"));
}

// After a write fails (a full disk: /dev/full), the rest of a long output is not formatted, and
// Close says why.
TEST(TextSink, AFailedWriteStopsTheFormatting) {
  const int fd = ::open("/dev/full", O_WRONLY);
  if (fd < 0) GTEST_SKIP() << "/dev/full is absent";
  for (unsigned threads : {1u, 3u}) {
    SCOPED_TRACE(threads);
    std::atomic<size_t> formatted{0};
    TextSink sink(fd, "/dev/full");
    constexpr size_t kPieces = 2'000'000;  // 100 B each: 200 MB, 200 drains
    AppendInOrder(sink, kPieces, threads, [&](size_t, std::string& text) {
      text.append(100, 'x');
      ++formatted;
    });
    EXPECT_TRUE(sink.failed());
    EXPECT_LT(formatted.load(), kPieces / 4);
    EXPECT_THAT(sink.Close(), StatusIs(StatusCode::kIoError, HasSubstr("/dev/full: write failed")));
  }
  ::close(fd);
}

TEST_F(OutputTargetTest, AnExistingFileIsReplacedOnlyWithForce) {
  Make("out.txt", "keep");
  EXPECT_THAT(WriteOutputFile(Path("out.txt"), "new", {}),
              StatusIs(StatusCode::kIoError, HasSubstr("out.txt: exists; --force replaces it")));
  EXPECT_EQ(Content("out.txt"), "keep");
  EXPECT_THAT(Tree(), ElementsAre("out.txt"));
  ASSERT_THAT(WriteOutputFile(Path("out.txt"), "new", {.force = true}), IsOk());
  EXPECT_EQ(Content("out.txt"), "new");
  EXPECT_THAT(Tree(), ElementsAre("out.txt"));
}

TEST_F(OutputTargetTest, AFileNotOfItsKindIsNeverReplaced) {
  Make("out.gst", "not a trace");
  EXPECT_THAT(WriteOutputFile(Path("out.gst"), "new", {.force = true}, "a .gst trace",
                              [](const std::string&) { return false; }),
              StatusIs(StatusCode::kIoError, HasSubstr("out.gst: exists and is not a .gst trace; not replaced, even with --force")));
  EXPECT_EQ(Content("out.gst"), "not a trace");
  EXPECT_THAT(Tree(), ElementsAre("out.gst"));
}

TEST_F(OutputTargetTest, DirectoriesLinksAndDevicesAreNeverReplacedByAFile) {
  fs::create_directory(Path("d"));
  Make("d/k.txt", "keep");
  EXPECT_THAT(WriteOutputFile(Path("d"), "x", {.force = true}),
              StatusIs(StatusCode::kIoError, HasSubstr("d: is a directory, not a regular file; not replaced")));
  Make("target.txt", "keep");
  fs::create_symlink("target.txt", Path("link.txt"));
  EXPECT_THAT(WriteOutputFile(Path("link.txt"), "x", {.force = true}),
              StatusIs(StatusCode::kIoError, HasSubstr("link.txt: is a symbolic link")));
  EXPECT_THAT(WriteOutputFile("/dev/null", "x", {.force = true}),
              StatusIs(StatusCode::kIoError, HasSubstr("/dev/null: is not a regular file")));
  EXPECT_EQ(Content("d/k.txt"), "keep");
  EXPECT_EQ(Content("target.txt"), "keep");
  EXPECT_THAT(Tree(), ElementsAre("d/", "d/k.txt", "link.txt", "target.txt"));
}

TEST_F(OutputTargetTest, AnInputIsNeverWrittenOverWhateverItsSpelling) {
  Make("trace.gst", "input");
  fs::create_symlink("trace.gst", Path("alias.gst"));
  fs::create_hard_link(Path("trace.gst"), Path("hard.gst"));
  const OutputOptions options{.force = true, .inputs = {Path("trace.gst")}};
  for (const std::string& out : {Path("trace.gst"), dir_ + "/./trace.gst", Path("alias.gst"), Path("hard.gst")}) {
    EXPECT_THAT(WriteOutputFile(out, "x", options), StatusIs(StatusCode::kIoError, HasSubstr("is the input"))) << out;
  }
  EXPECT_EQ(Content("trace.gst"), "input");
}

// An input of several paths, as an OTF2 anchor "a.otf2" is with a.def and a/ (the CLI passes
// format/trace_writer.h's PathsBesides; base/ knows no format).
std::vector<std::string> AnchorParts(const std::string& input) {
  const fs::path p(input);
  if (p.extension() != ".anchor") return {};
  return {fs::path(p).replace_extension(".def").string(), fs::path(p).replace_extension().string()};
}

TEST_F(OutputTargetTest, AnInputClaimsThePathsInputPartsGivesIt) {
  Make("a.anchor", "anchor");
  Make("a.def", "defs");
  fs::create_directory(Path("a"));
  Make("a/0.evt", "events");
  const OutputOptions options{.force = true, .inputs = {Path("a.anchor")}, .input_parts = AnchorParts};
  EXPECT_THAT(WriteOutputFile(Path("a.def"), "x", options), StatusIs(StatusCode::kIoError, HasSubstr("a.def: is part of the input")));
  EXPECT_THAT(WriteOutputFile(Path("a/0.evt"), "x", options),
              StatusIs(StatusCode::kIoError, HasSubstr("a/0.evt: lies inside the input")));
  EXPECT_EQ(Content("a.def"), "defs");
  EXPECT_EQ(Content("a/0.evt"), "events");
  // Without it, an input is only its own path.
  EXPECT_THAT(WriteOutputFile(Path("a.def"), "x", {.force = true, .inputs = {Path("a.anchor")}}), IsOk());
  EXPECT_EQ(Content("a.def"), "x");
}

TEST_F(OutputTargetTest, ADirectoryOutputNeverHoldsOrLiesInAnInput) {
  fs::create_directory(Path("run"));
  Make("run/part-0", "input");
  const OutputOptions options{.force = true, .inputs = {Path("run/part-0")}};
  EXPECT_THAT(OutputTarget::Claim("a trace", {DirectoryPart(Path("run"))}, options),
              StatusIs(StatusCode::kIoError, HasSubstr("run: holds the input")));
  EXPECT_THAT(OutputTarget::Claim("a trace", {DirectoryPart(dir_)}, options),
              StatusIs(StatusCode::kIoError, HasSubstr("holds the input")));
  EXPECT_THAT(WriteOutputFile(Path("run/report.txt"), "x", {.inputs = {Path("run")}}),
              StatusIs(StatusCode::kIoError, HasSubstr("run/report.txt: lies inside the input")));
  EXPECT_THAT(Tree(), ElementsAre("run/", "run/part-0"));
}

TEST_F(OutputTargetTest, ADirectoryOfItsOwnKindIsReplacedWithForceAndOnlyItsFilesDeleted) {
  fs::create_directory(Path("out"));
  Make("out/part-0", "old 0");
  Make("out/part-1", "old 1");
  EXPECT_THAT(OutputTarget::Claim("a trace", {DirectoryPart(Path("out"))}, {}),
              StatusIs(StatusCode::kIoError, HasSubstr("out: exists; --force replaces it")));
  {
    Result<OutputTarget> t = OutputTarget::Claim("a trace", {DirectoryPart(Path("out"))}, {.force = true});
    ASSERT_THAT(t, IsOk());
    fs::create_directory(t->staged(0));
    ASSERT_THAT(WriteNewFile(t->staged(0) + "/part-0", "new 0"), IsOk());
    ASSERT_THAT(t->Commit(), IsOk());
  }
  EXPECT_EQ(Content("out/part-0"), "new 0");
  EXPECT_THAT(Tree(), ElementsAre("out/", "out/part-0"));
}

TEST_F(OutputTargetTest, ADirectoryHoldingAnythingElseIsNeverReplaced) {
  fs::create_directory(Path("out"));
  Make("out/part-0", "old 0");
  Make("out/k.txt", "keep");
  EXPECT_THAT(OutputTarget::Claim("a trace", {DirectoryPart(Path("out"))}, {.force = true}),
              StatusIs(StatusCode::kIoError,
                       HasSubstr("out: is a directory holding 'k.txt', which is not part of a trace; not replaced, even with --force")));
  EXPECT_THAT(Tree(), ElementsAre("out/", "out/k.txt", "out/part-0"));
}

TEST_F(OutputTargetTest, APartialSetOfPartsIsNotReplaced) {
  Make("x.def", "someone's");
  const std::vector<OutputPart> parts = {OutputPart{Path("x.def"), AnyRegularFile, nullptr},
                                         OutputPart{Path("x.otf2"), AnyRegularFile, nullptr}};
  EXPECT_THAT(OutputTarget::Claim("an OTF2 archive", parts, {.force = true}),
              StatusIs(StatusCode::kIoError, HasSubstr("x.def: exists but")));
  EXPECT_THAT(Tree(), ElementsAre("x.def"));
}

TEST_F(OutputTargetTest, AFailedWriteLeavesNothingBehind) {
  {
    Result<OutputTarget> t = OutputTarget::Claim("a trace", {DirectoryPart(Path("out"))}, {});
    ASSERT_THAT(t, IsOk());
    fs::create_directory(t->staged(0));
    ASSERT_THAT(WriteNewFile(t->staged(0) + "/part-0", "half"), IsOk());
    // the writer fails here: no Commit
  }
  EXPECT_THAT(Tree(), ElementsAre());
  EXPECT_THAT(WriteOutputFile(Path("missing/out.txt"), "x", {}),
              StatusIs(StatusCode::kIoError, HasSubstr("missing/out.txt: cannot create: No such file or directory")));
  EXPECT_THAT(Tree(), ElementsAre());
}

TEST_F(OutputTargetTest, APartThatAppearsWhileWritingIsNotOverwrittenAndTheOthersAreMovedBack) {
  // The first part is moved last: x.def is in place when x.otf2 fails, and is moved back.
  const std::vector<OutputPart> parts = {OutputPart{Path("x.otf2"), AnyRegularFile, nullptr},
                                         OutputPart{Path("x.def"), AnyRegularFile, nullptr}};
  {
    Result<OutputTarget> t = OutputTarget::Claim("an OTF2 archive", parts, {});
    ASSERT_THAT(t, IsOk());
    ASSERT_THAT(WriteNewFile(t->staged(0), "new anchor"), IsOk());
    ASSERT_THAT(WriteNewFile(t->staged(1), "new def"), IsOk());
    Make("x.otf2", "someone's");
    EXPECT_THAT(t->Commit(), StatusIs(StatusCode::kIoError, HasSubstr("x.otf2: appeared while it was written")));
    EXPECT_EQ(Content("x.otf2"), "someone's");
    const std::string staging = fs::path(t->staging_dir()).filename().string();
    EXPECT_THAT(Tree(), ElementsAre(staging + "/", staging + "/x.def", staging + "/x.otf2", "x.otf2"));
  }  // the destructor removes the staging directory
  EXPECT_THAT(Tree(), ElementsAre("x.otf2"));
}

TEST_F(OutputTargetTest, TrailingSlashAndDotNameTheDirectoryItself) {
  fs::create_directory(Path("cwd"));
  Make("cwd/k.txt", "keep");
  EXPECT_THAT(OutputTarget::Claim("a trace", {DirectoryPart(Path("cwd/"))}, {.force = true}),
              StatusIs(StatusCode::kIoError, HasSubstr("holding 'k.txt'")));
  EXPECT_THAT(OutputTarget::Claim("a trace", {DirectoryPart(Path("cwd/."))}, {.force = true}),
              StatusIs(StatusCode::kIoError, HasSubstr("holding 'k.txt'")));
  EXPECT_THAT(Tree(), ElementsAre("cwd/", "cwd/k.txt"));
}

}  // namespace
}  // namespace grainscope
