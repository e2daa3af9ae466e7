#include "format/hpctoolkit/hpctoolkit_reader.h"

#include <filesystem>
#include <functional>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/status_matchers.h"
#include "base/test_files.h"
#include "format/format_names.h"
#include "format/trace_reader.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

const std::string kCorpus = std::string(GRAINSCOPE_CORPUS_DIR) + "/other-formats/pipit-pingpong-hpctoolkit";

// Per location: Enters of functions and entry points, and of loops.
std::vector<std::pair<int, int>> Enters(const Trace& t) {
  std::vector<std::pair<int, int>> n;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const auto ev = t.events(LocationId(l));
    std::pair<int, int> k{0, 0};
    for (size_t i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] != EventKind::kEnter) continue;
      (t.str(t.region(RegionId(ev.arg[i])).name).starts_with("loop") ? k.second : k.first)++;
    }
    n.push_back(k);
  }
  return n;
}

// Pipit's HPCToolkit test database: its tests assert 117 Enter events on process 0 and 88 on
// process 1 (functions; loops are its separate "Loop Enter" events).
TEST(Hpctoolkit, ReadsPipitsPingPong) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "corpus trace " << kCorpus << " is absent (../shared/corpus)";
  Result<Trace> r = ReadTrace(kCorpus);
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.format(), kHpctoolkitFormat);
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(t.str(t.location(LocationId(0)).name), "rank 0 thread 0");
  EXPECT_EQ(t.str(t.location(LocationId(1)).name), "rank 1 thread 0");
  EXPECT_THAT(Enters(t), ElementsAre(std::pair(117, 35), std::pair(88, 19)));
  for (uint32_t l = 0; l < 2; ++l) {
    const auto ev = t.events(LocationId(l));
    EXPECT_EQ(t.str(t.region(RegionId(ev.arg[0])).name), "main thread");  // the entry point, first
    EXPECT_EQ(ev.kind.back(), EventKind::kLeave);
    EXPECT_EQ(ev.time.back(), t.end_ns());  // closed at the traces' last timestamp, as Pipit does
  }
  for (const Region& region : t.regions())
    if (t.str(region.name) == "PMPI_Send [libmpi.so.12.1.1]") EXPECT_EQ(region.role, RegionRole::kPointToPoint);
  EXPECT_TRUE(t.diagnostics().entries().empty());
}

// A copy of the corpus database with one file changed by `change`.
Result<Trace> ReadChangedCopy(const TempDir& dir, const std::string& file, const std::function<void(const std::string&)>& change) {
  for (const char* f : {"meta.db", "profile.db", "trace.db"}) {
    fs::copy_file(kCorpus + "/" + f, dir / f, fs::copy_options::overwrite_existing);
    fs::permissions(dir / f, fs::perms::owner_write, fs::perm_options::add);  // the corpus is read-only
  }
  change(dir / file);
  return ReadTrace(dir / "");
}

TEST(Hpctoolkit, ATruncatedFileIsSaid) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "corpus trace " << kCorpus << " is absent (../shared/corpus)";
  TempDir dir("hpctoolkit_truncated");
  EXPECT_THAT(ReadChangedCopy(dir, "trace.db", [](const std::string& p) { fs::resize_file(p, fs::file_size(p) - 8); }),
              StatusIs(StatusCode::kDataLoss, HasSubstr("trace.db: truncated")));
}

TEST(Hpctoolkit, AnotherMajorVersionIsRefusedWithItsNumber) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "corpus trace " << kCorpus << " is absent (../shared/corpus)";
  TempDir dir("hpctoolkit_version");
  auto set_version = [](const std::string& p) {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(14);
    f.put(5);
  };
  EXPECT_THAT(ReadChangedCopy(dir, "meta.db", set_version), StatusIs(StatusCode::kUnimplemented, HasSubstr("version 5.")));
}

TEST(Hpctoolkit, APointerOutsideTheFileIsDamageNotACrash) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "corpus trace " << kCorpus << " is absent (../shared/corpus)";
  TempDir dir("hpctoolkit_pointer");
  auto bad_pointer = [](const std::string& p) {  // the context tree section's pointer
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(0x48);
    for (int i = 0; i < 8; ++i) f.put(static_cast<char>(0x7f));
  };
  EXPECT_THAT(ReadChangedCopy(dir, "meta.db", bad_pointer), StatusIs(StatusCode::kDataLoss, HasSubstr("meta.db: damaged")));
}

// Found by fuzz_hpctoolkit (out of memory): a count whose stride is 0 claimed four billion
// profiles. Counts times strides must fit the file.
TEST(Hpctoolkit, ACountBeyondTheFileIsDamageNotAnAllocation) {
  if (!fs::exists(kCorpus)) GTEST_SKIP() << "corpus trace " << kCorpus << " is absent (../shared/corpus)";
  TempDir dir("hpctoolkit_count");
  auto huge_count = [](const std::string& p) {  // the profile infos' count and stride
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(0x18);
    uint64_t section = 0;
    f.read(reinterpret_cast<char*>(&section), 8);
    f.seekp(static_cast<std::streamoff>(section + 8));
    for (int i = 0; i < 4; ++i) f.put(static_cast<char>(0xff));
    f.put(0);
  };
  EXPECT_THAT(ReadChangedCopy(dir, "profile.db", huge_count), StatusIs(StatusCode::kDataLoss, HasSubstr("profile.db: damaged")));
}

}  // namespace
}  // namespace grainscope
