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

}  // namespace
}  // namespace grainscope
