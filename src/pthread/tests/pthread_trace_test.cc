// libgrainscope-pthread on a program that knows nothing of grainscope (workqueue.c): its threads,
// locks, condition variable and barrier are recorded, and the analyses see who waited for whom.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/replay.h"
#include "analysis/waits/call_sites.h"
#include "analysis/waits/wait_states.h"
#include "format/trace_reader.h"

namespace grainscope {
namespace {

#if defined(GS_SANITIZER_BUILD)
constexpr bool kSanitizerBuild = true;
#else
constexpr bool kSanitizerBuild = false;
#endif

size_t EdgesOf(const Trace& t, DependencyKind kind) {
  size_t n = 0;
  for (DependencyKind k : t.dependencies().kind) n += k == kind;
  return n;
}

TEST(PthreadTrace, WorkQueueUnderThePreloadedLibrary) {
  if (kSanitizerBuild) GTEST_SKIP() << "sanitizer build: the library cannot be preloaded into a plain program";
  std::filesystem::create_directories(GS_PTHREAD_WORK_DIR);
  const std::string trace = fmt::format("{}/workqueue-{}.gst", GS_PTHREAD_WORK_DIR, getpid());
  std::filesystem::remove(trace);
  const std::string cmd = fmt::format("LD_PRELOAD={} GRAINSCOPE_TRACE={} {} > {}.log 2>&1", GS_PTHREAD_LIBRARY, trace,
                                      GS_WORKQUEUE, trace);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << trace << ".log";
  Result<Trace> read = ReadTrace(trace);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const Trace& t = *read;
  EXPECT_EQ(t.locations().size(), 5u);  // main and 4 workers; not the runtime's flusher
  EXPECT_EQ(EdgesOf(t, DependencyKind::kFork), 4u);
  EXPECT_EQ(EdgesOf(t, DependencyKind::kJoin), 4u);
  EXPECT_GE(EdgesOf(t, DependencyKind::kConditionSignal), 1u);
  EXPECT_GE(EdgesOf(t, DependencyKind::kLockHandover), 1u);  // the count mutex, held 3 ms by 4 threads
  ASSERT_EQ(t.collectives().size(), 1u);
  EXPECT_EQ(t.collectives().op[0], CollectiveOp::kBarrier);
  EXPECT_EQ(t.collectives().member_count(CollectiveId(0)), 4u);
  const WaitStates ws = FindWaitStates(t, FindCallSites(t));
  // The workers arrive at the barrier 5 ms apart: 15 + 10 + 5 ms of waiting, give or take their
  // last items.
  EXPECT_GE(ws.time_ns[static_cast<int>(WaitKind::kWaitAtBarrier)], 15'000'000);
  EXPECT_GT(ws.time_ns[static_cast<int>(WaitKind::kConditionWait)], 0);
  EXPECT_GT(ws.time_ns[static_cast<int>(WaitKind::kLockContention)], 0);
  EXPECT_GT(ws.time_ns[static_cast<int>(WaitKind::kJoinWait)], 0);
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_TRUE(cp.ok()) << cp.status().message();
  // Blocked threads are not working: the load balance of a queue fed 1 ms per item to 4 workers
  // doing 3 ms each is far from 1.
  EXPECT_LT(cp->load_balance, 0.95);
  Result<ReplayResult> identity = Replay(t, WhatIf());
  ASSERT_TRUE(identity.ok()) << identity.status().message();
  EXPECT_EQ(identity->max_deviation_ns, 0);
  std::filesystem::remove(trace);
}

// `grainscope record -- ./app` (no -np) runs it under the library into one new .gst file, exits
// with the program's status, and never overwrites a file that is there.
TEST(PthreadTrace, RecordWithoutRanksRecordsThreads) {
  if (kSanitizerBuild) GTEST_SKIP() << "sanitizer build: the library cannot be preloaded into a plain program";
  std::filesystem::create_directories(GS_PTHREAD_WORK_DIR);
  const std::string trace = fmt::format("{}/recorded-{}.gst", GS_PTHREAD_WORK_DIR, getpid());
  std::filesystem::remove(trace);
  const std::string cmd = fmt::format("{} record --trace {} -- {} > {}.log 2>&1", GS_GRAINSCOPE, trace, GS_WORKQUEUE, trace);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << trace << ".log";
  Result<Trace> read = ReadTrace(trace);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->locations().size(), 5u);
  EXPECT_EQ(read->collectives().size(), 1u);
  const auto size = std::filesystem::file_size(trace);
  const int again = std::system(cmd.c_str());
  EXPECT_TRUE(WIFEXITED(again) && WEXITSTATUS(again) != 0);
  EXPECT_EQ(std::filesystem::file_size(trace), size);  // untouched
  std::filesystem::remove(trace);
}

}  // namespace
}  // namespace grainscope
