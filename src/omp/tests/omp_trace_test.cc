// libgrainscope-omp on an OpenMP program that knows nothing of grainscope (omp_program.c): its
// parallel regions, implicit and explicit barriers and critical section become regions, fork and
// join edges, barrier instances and lock hand-overs.
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

size_t EdgesOf(const Trace& t, DependencyKind kind) {
  size_t n = 0;
  for (DependencyKind k : t.dependencies().kind) n += k == kind;
  return n;
}

TEST(OmptTrace, ParallelLoopCriticalAndBarriers) {
#if defined(GS_SANITIZER_BUILD)
  GTEST_SKIP() << "sanitizer build: the tool cannot be loaded into a plain program";
#endif
  std::filesystem::create_directories(GS_OMP_WORK_DIR);
  const std::string trace = fmt::format("{}/omp-{}.gst", GS_OMP_WORK_DIR, getpid());
  std::filesystem::remove(trace);
  const std::string cmd = fmt::format("OMP_TOOL_LIBRARIES={} GRAINSCOPE_TRACE={} {} > {}.log 2>&1", GS_OMP_LIBRARY, trace,
                                      GS_OMP_PROGRAM, trace);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << trace << ".log";
  Result<Trace> read = ReadTrace(trace);
  ASSERT_TRUE(read.ok()) << read.status().message();
  const Trace& t = *read;
  EXPECT_EQ(t.locations().size(), 4u);
  EXPECT_EQ(EdgesOf(t, DependencyKind::kFork), 6u);  // 2 teams x 3 workers
  // The critical section, 4 threads in turn: a hand-over to every thread that asked while another
  // held it (the first may find it free).
  EXPECT_GE(EdgesOf(t, DependencyKind::kLockHandover), 2u);
  // Barriers of 4: the loop's implicit one and the explicit one; the last region's implicit one
  // is never left by the workers before the program ends (unfinished).
  ASSERT_GE(t.collectives().size(), 2u);
  for (size_t c = 0; c < 2; ++c) EXPECT_EQ(t.collectives().member_count(CollectiveId(c)), 4u);
  const WaitStates ws = FindWaitStates(t, FindCallSites(t));
  // The loop's barrier: threads with 3, 7, 11 and 15 ms of work wait 12 + 8 + 4 = 24 ms.
  EXPECT_GE(ws.time_ns[static_cast<int>(WaitKind::kWaitAtBarrier)], 20'000'000);
  EXPECT_GT(ws.time_ns[static_cast<int>(WaitKind::kLockContention)], 5'000'000);  // 2 + 4 + 6 ms
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_TRUE(cp.ok()) << cp.status().message();
  Result<ReplayResult> identity = Replay(t, WhatIf());
  ASSERT_TRUE(identity.ok()) << identity.status().message();
  EXPECT_EQ(identity->max_deviation_ns, 0);
  std::filesystem::remove(trace);
}

// `grainscope record --openmp -- ./app` names the tool in OMP_TOOL_LIBRARIES.
TEST(OmptTrace, RecordOpenMp) {
#if defined(GS_SANITIZER_BUILD)
  GTEST_SKIP() << "sanitizer build: the tool cannot be loaded into a plain program";
#endif
  std::filesystem::create_directories(GS_OMP_WORK_DIR);
  const std::string trace = fmt::format("{}/recorded-{}.gst", GS_OMP_WORK_DIR, getpid());
  std::filesystem::remove(trace);
  const std::string cmd = fmt::format("{} record --openmp --trace {} -- {} > {}.log 2>&1", GS_GRAINSCOPE, trace,
                                      GS_OMP_PROGRAM, trace);
  ASSERT_EQ(std::system(cmd.c_str()), 0) << "see " << trace << ".log";
  Result<Trace> read = ReadTrace(trace);
  ASSERT_TRUE(read.ok()) << read.status().message();
  EXPECT_EQ(read->locations().size(), 4u);
  EXPECT_GE(read->collectives().size(), 2u);
  std::filesystem::remove(trace);
}

}  // namespace
}  // namespace grainscope
