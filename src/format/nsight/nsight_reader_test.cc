#include "format/nsight/nsight_reader.h"

#include <sqlite3.h>

#include <filesystem>
#include <map>
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

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Enters per region name on `loc`.
std::map<std::string, int> EntersByName(const Trace& t, LocationId loc) {
  std::map<std::string, int> n;
  const auto ev = t.events(loc);
  for (size_t i = 0; i < ev.size(); ++i)
    if (ev.kind[i] == EventKind::kEnter) ++n[std::string(t.str(t.region(RegionId(ev.arg[i])).name))];
  return n;
}

size_t EdgesOf(const Trace& t, DependencyKind kind) {
  return std::count(t.dependencies().kind.begin(), t.dependencies().kind.end(), kind);
}

// Pipit's Nsight test data: one MPI rank of a CUDA saxpy on Perlmutter. The counts were read from
// the database with the sqlite3 shell: 5 kernels, 10 host-to-device and 5 device-to-host copies
// on stream 7, each correlated with a runtime call; 10 MPI_Send and 5 MPI_Recv NVTX ranges.
TEST(Nsight, ReadsPipitsSaxpyRank) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/other-formats/pipit-saxpy-mpi-cuda-nsys.sqlite";
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
  Result<Trace> r = ReadTrace(path);
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  EXPECT_EQ(t.format(), kNsightFormat);
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(t.str(t.location(LocationId(0)).name), "MPI Rank 0 (pid 1230493, tid 1230493)");
  EXPECT_EQ(t.location(LocationId(1)).kind, LocationKind::kGpuStream);
  EXPECT_EQ(t.location(LocationId(1)).group, t.location(LocationId(0)).group);  // the rank's stream
  const auto host = EntersByName(t, LocationId(0));
  EXPECT_EQ(host.at("MPI_Send"), 10);
  EXPECT_EQ(host.at("MPI_Recv"), 5);
  EXPECT_EQ(host.at("cudaLaunchKernel"), 5);
  EXPECT_EQ(host.at("cudaMemcpy"), 15);
  EXPECT_EQ(host.count("cudaMemcpy_v3020"), 0u);  // the same calls, recorded twice by Nsight
  EXPECT_THAT(EntersByName(t, LocationId(1)),
              ElementsAre(std::pair<const std::string, int>("Memcpy DtoH", 5), std::pair<const std::string, int>("Memcpy HtoD", 10),
                          std::pair<const std::string, int>("saxpy", 5)));
  EXPECT_EQ(EdgesOf(t, DependencyKind::kGpuLaunch), 20u);
  EXPECT_EQ(EdgesOf(t, DependencyKind::kGpuSync), 15u);  // each blocking copy waits for its copy
  EXPECT_GT(t.diagnostics().Count(Diag::kSkippedRecords), 0u);  // scheduling and CPU sampling
}

// A database written here, as `nsys export` lays one out (the columns read).
class SmallExport : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(sqlite3_open(path_.c_str(), &db_), SQLITE_OK);
    Exec("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
         "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'cudaLaunchKernel_v7000'), "
         "(3, 'cudaStreamSynchronize'), (4, 'step'), (5, 'worker'), (6, 'MPI_Barrier');"
         "CREATE TABLE ThreadNames (nameId INTEGER, priority INTEGER, globalTid INTEGER);"
         "INSERT INTO ThreadNames VALUES (5, 0, 16777216 * 42 + 43);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, eventClass INTEGER, globalTid INTEGER,"
         " correlationId INTEGER, nameId INTEGER, returnValue INTEGER, callchainId INTEGER);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (100, 120, 1, 16777216 * 42 + 43, 7, 1, 0, NULL),"
         " (101, 119, 1, 16777216 * 42 + 43, 7, 2, 0, NULL), (130, 400, 1, 16777216 * 42 + 43, 8, 3, 0, NULL);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, contextId INTEGER,"
         " streamId INTEGER, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER, shortName INTEGER);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (110, 390, 0, 1, 13, 7, 16777216 * 42, 4, 4);"
         "CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (start INTEGER, end INTEGER, deviceId INTEGER,"
         " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, syncType INTEGER, eventId INTEGER);"
         "INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES (130, 400, 0, 1, 13, 8, 16777216 * 42, 3, NULL);"
         "CREATE TABLE NVTX_EVENTS (start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER, category INTEGER,"
         " color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER, textId INTEGER);"
         "INSERT INTO NVTX_EVENTS VALUES (90, 500, 59, NULL, NULL, NULL, 'iteration', 16777216 * 42 + 43, NULL, NULL),"
         " (450, 480, 59, NULL, NULL, NULL, NULL, 16777216 * 42 + 43, NULL, 6),"
         " (460, 700, 60, NULL, NULL, NULL, 'phase', 16777216 * 42 + 43, NULL, NULL),"
         " (420, NULL, 34, NULL, NULL, NULL, 'converged', 16777216 * 42 + 43, NULL, NULL),"
         " (600, NULL, 59, NULL, NULL, NULL, 'open', 16777216 * 42 + 43, NULL, NULL);"
         // Another process's kernel with the same correlation id: its own stream, no launch edge.
         "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (120, 130, 0, 1, 13, 7, 16777216 * 77, 4, 4);"
         "CREATE TABLE SCHED_EVENTS (start INTEGER, cpu INTEGER); INSERT INTO SCHED_EVENTS VALUES (1, 0), (2, 1);");
    sqlite3_close(db_);
  }
  void Exec(const char* sql) {
    char* error = nullptr;
    ASSERT_EQ(sqlite3_exec(db_, sql, nullptr, nullptr, &error), SQLITE_OK) << error;
  }
  TempDir dir_{"nsight_small"};
  std::string path_ = dir_ / "run.sqlite";
  sqlite3* db_ = nullptr;
};

TEST_F(SmallExport, ThreadsStreamsLaunchAndSyncEdges) {
  Result<Trace> r = ReadTrace(path_);
  ASSERT_THAT(r, IsOk());
  const Trace& t = *r;
  ASSERT_EQ(t.locations().size(), 3u);
  EXPECT_EQ(t.str(t.location(LocationId(0)).name), "worker (pid 42, tid 43)");
  EXPECT_EQ(t.str(t.location(LocationId(1)).name), "GPU 0 stream 13 (pid 42)");
  EXPECT_EQ(t.str(t.location(LocationId(2)).name), "GPU 0 stream 13 (pid 77)");
  EXPECT_THAT(EntersByName(t, LocationId(0)),
              ElementsAre(std::pair<const std::string, int>("MPI_Barrier", 1), std::pair<const std::string, int>("cudaLaunchKernel", 1),
                          std::pair<const std::string, int>("cudaStreamSynchronize", 1),
                          std::pair<const std::string, int>("iteration", 1)));
  const auto host = t.events(LocationId(0));
  EXPECT_EQ(host.time.front(), 90);  // the NVTX range encloses the calls
  EXPECT_EQ(EdgesOf(t, DependencyKind::kGpuLaunch), 1u);
  ASSERT_EQ(EdgesOf(t, DependencyKind::kGpuSync), 1u);  // the kernel's end -> the synchronise's end
  EXPECT_EQ(t.dependencies().from_location[1].value, 1u);
  EXPECT_EQ(host.time[t.dependencies().to_event[1]], 400);
  EXPECT_EQ(t.diagnostics().Count(Diag::kSkippedRecords), 2u);       // SCHED_EVENTS
  EXPECT_EQ(t.diagnostics().Count(Diag::kIgnoredAttributes), 1u);    // cudaLaunchKernel_v7000
  EXPECT_EQ(t.diagnostics().Count(Diag::kInvalidRecords), 1u);       // the range without its end
  EXPECT_EQ(t.diagnostics().Count(Diag::kGpuWorkWithoutLaunch), 1u);  // pid 77's kernel
  std::vector<std::string> marks;
  for (size_t i = 0; i < host.size(); ++i)
    if (host.kind[i] == EventKind::kMarker) marks.emplace_back(t.str(StringId(host.arg[i])));
  EXPECT_THAT(marks, ElementsAre("converged", "phase (range start)", "phase (range end)"));
}

TEST(Nsight, AnSqliteDatabaseOfAnotherProgramIsSaidToBeOne) {
  TempDir dir("nsight_other_db");
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((dir / "other.db").c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "CREATE TABLE t (x INTEGER); INSERT INTO t VALUES (1);", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  const auto before = std::filesystem::last_write_time(dir / "other.db");
  EXPECT_THAT(ReadTrace(dir / "other.db"), StatusIs(StatusCode::kDataLoss, HasSubstr("without the tables of an Nsight Systems export")));
  EXPECT_EQ(std::filesystem::last_write_time(dir / "other.db"), before);  // opened immutable, never written
  EXPECT_FALSE(std::filesystem::exists(dir / "other.db-journal"));
}

}  // namespace
}  // namespace grainscope
