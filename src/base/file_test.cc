#include "base/file.h"

#include <dirent.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "base/status_matchers.h"

namespace grainscope {
namespace {

using ::testing::HasSubstr;

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/gs_file_test_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::system(("rm -rf " + dir_).c_str()); }

  int CountEntries() const {
    int n = 0;
    DIR* d = opendir(dir_.c_str());
    while (dirent* e = readdir(d)) n += e->d_name[0] != '.';
    closedir(d);
    return n;
  }

  std::string dir_;
};

TEST_F(FileTest, WriteNewFileNeverOverwrites) {
  const std::string path = dir_ + "/out.txt";
  ASSERT_THAT(WriteNewFile(path, "hello\n"), IsOk());
  EXPECT_EQ(*ReadFile(path), "hello\n");
  EXPECT_THAT(WriteNewFile(path, "other"), StatusIs(StatusCode::kIoError, HasSubstr("out.txt: cannot create: File exists")));
  EXPECT_EQ(*ReadFile(path), "hello\n");
  EXPECT_THAT(WriteNewFile(dir_ + "/missing/out.txt", "x"),
              StatusIs(StatusCode::kIoError, HasSubstr("missing/out.txt: cannot create")));
  EXPECT_EQ(CountEntries(), 1);
}

TEST_F(FileTest, ReadErrorsNameTheFile) {
  EXPECT_THAT(ReadFile(dir_ + "/nope"), StatusIs(StatusCode::kIoError, HasSubstr("nope: cannot open")));
  EXPECT_THAT(ReadFile(dir_), StatusIs(StatusCode::kIoError, HasSubstr("is a directory")));
}

// An endless input (a device, a pipe) stops at the documented limit with an error, instead of
// growing memory without bound; GRAINSCOPE_MAX_STREAM_BYTES sets the limit.
TEST(ReadFileLimits, EndlessStreamStopsAtTheLimit) {
  ASSERT_EQ(setenv("GRAINSCOPE_MAX_STREAM_BYTES", "1000000", 1), 0);
  Result<std::string> r = ReadFile("/dev/zero");
  unsetenv("GRAINSCOPE_MAX_STREAM_BYTES");
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r.status().message(), HasSubstr("/dev/zero: more than 1000000 bytes from a pipe or device"));
  EXPECT_EQ(MaxStreamBytes(), kDefaultMaxStreamBytes);
}

// The head check sees the first 64 KiB before the rest is read: rejecting it ends the read.
TEST(ReadFileLimits, HeadCheckStopsAnEndlessInputAtOnce) {
  size_t seen = 0;
  Result<std::string> r = ReadFile("/dev/zero", [&](std::string_view head) {
    seen = head.size();
    return DataLoss("not a trace");
  });
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "not a trace");
  EXPECT_EQ(seen, kHeadBytes);
}

TEST_F(FileTest, HeadCheckSeesAShortFileWhole) {
  const std::string path = dir_ + "/short.txt";
  ASSERT_THAT(WriteNewFile(path, "start 1 1 0\n"), IsOk());
  std::string seen;
  Result<std::string> r = ReadFile(path, [&](std::string_view head) {
    seen = std::string(head);
    return OkStatus();
  });
  ASSERT_THAT(r, IsOk());
  EXPECT_EQ(seen, "start 1 1 0\n");
  EXPECT_EQ(*r, seen);
}

}  // namespace
}  // namespace grainscope
