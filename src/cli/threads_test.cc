// Every command's output is the same, byte for byte, on one thread and on four, run in-process so
// that the ThreadSanitizer build (make test-tsan) sees the threads: reading a rank directory's
// parts and OTF2's location batches, the builder's per-location nesting check, the trace index,
// the wait characterisation's checkpoints and blocking events, and the JSON and CSV writers'
// chunks. tests/scale/threads_identical_test.py compares the binary's outputs on more traces;
// this one makes its own, big enough for several chunks of every chunked writer (8192 rows).
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "cli/common.h"
#include "cli/run_cli.h"
#include "format/trace_writer.h"
#include "model/trace_builder.h"

namespace grainscope::cli {
namespace {

namespace fs = std::filesystem;

// 8 ranks in a ring: each iteration rank r computes (longer on higher ranks, so the receives wait),
// sends to r+1 and receives from r-1; every 50th iteration ends in an MPI_Allreduce.
Trace Ranks() {
  constexpr int kRanks = 8, kIterations = 1500;
  TraceBuilder b("test");
  std::vector<LocationId> loc;
  for (int r = 0; r < kRanks; ++r) loc.push_back(b.AddLocation(fmt::format("rank {}", r), LocationKind::kRank, r));
  const CommunicatorId world = b.AddCommunicator("MPI_COMM_WORLD", loc);
  const RegionId compute = b.AddRegion("compute", RegionRole::kFunction, 1);
  const RegionId send = b.AddRegion("MPI_Send", RegionRole::kPointToPoint, 2);
  const RegionId recv = b.AddRegion("MPI_Recv", RegionRole::kPointToPoint, 3);
  const RegionId allreduce = b.AddRegion("MPI_Allreduce", RegionRole::kCollective, 4);
  std::vector<TimeNs> now(kRanks, 0);
  for (int i = 0; i < kIterations; ++i) {
    std::vector<MessageId> msg(kRanks);
    for (int r = 0; r < kRanks; ++r) {
      msg[r] = b.AddMessage({loc[r], loc[(r + 1) % kRanks], i % 7, "", 64, world, {}, {}});
    }
    std::vector<TimeNs> sent(kRanks);
    for (int r = 0; r < kRanks; ++r) {
      TimeNs& t = now[r];
      b.Enter(loc[r], t, compute);
      t += 1000 + 100 * r + 37 * ((i * (r + 3)) % 11);
      b.Leave(loc[r], t, compute);
      b.Enter(loc[r], t, send);
      b.Send(loc[r], t + 5, msg[r]);
      sent[r] = t + 5;
      t += 10;
      b.Leave(loc[r], t, send);
    }
    for (int r = 0; r < kRanks; ++r) {
      TimeNs& t = now[r];
      const int from = (r + kRanks - 1) % kRanks;
      b.Enter(loc[r], t, recv);
      t = std::max(t + 5, sent[from] + 200);
      b.Recv(loc[r], t, msg[from]);
      t += 5;
      b.Leave(loc[r], t, recv);
    }
    if (i % 50 != 49) continue;
    const CollectiveId c = b.AddCollective(CollectiveOp::kAllreduce, world, LocationId());
    TimeNs last = 0;
    for (int r = 0; r < kRanks; ++r) last = std::max(last, now[r]);
    for (int r = 0; r < kRanks; ++r) {
      b.Enter(loc[r], now[r], allreduce);
      b.CollBegin(loc[r], now[r], c, 8, 8);
      now[r] = last + 300;
      b.CollEnd(loc[r], now[r], c);
      b.Leave(loc[r], now[r], allreduce);
    }
  }
  Result<Trace> t = b.Finish();
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(*t);
}

// 4 threads of one process meeting at a barrier after each piece of work, and taking a lock.
Trace Threads() {
  constexpr int kThreads = 4, kIterations = 6000;
  constexpr uint64_t kBarrier = 0xb0, kLock = 0x10c;
  TraceBuilder b("test");
  std::vector<LocationId> loc;
  for (int k = 0; k < kThreads; ++k) loc.push_back(b.AddLocation(fmt::format("thread {}", k), LocationKind::kThread, k));
  const RegionId work = b.AddRegion("work", RegionRole::kFunction, 1);
  const RegionId barrier = b.AddRegion("barrier", RegionRole::kBarrier, 2);
  TimeNs now = 0;
  for (int i = 0; i < kIterations; ++i) {
    TimeNs last = now;
    for (int k = 0; k < kThreads; ++k) {
      TimeNs t = now;
      b.Enter(loc[k], t, work);
      if (k == i % kThreads) {  // one thread a turn takes the lock inside its work
        b.Sync(loc[k], t + 10, SyncKind::kLockRequest, kLock);
        b.Sync(loc[k], t + 20, SyncKind::kLockAcquired, kLock);
        b.Sync(loc[k], t + 30, SyncKind::kLockRelease, kLock);
      }
      t += 500 + 150 * k + 41 * ((i * (k + 5)) % 13);
      b.Leave(loc[k], t, work);
      b.Enter(loc[k], t, barrier);
      b.Sync(loc[k], t, SyncKind::kBarrierEnter, kBarrier, kThreads);
      last = std::max(last, t);
    }
    now = last + 50;
    for (int k = 0; k < kThreads; ++k) {
      b.Sync(loc[k], now, SyncKind::kBarrierLeave, kBarrier);
      b.Leave(loc[k], now + 1, barrier);
    }
    now += 2;
  }
  Result<Trace> t = b.Finish();
  EXPECT_TRUE(t.ok()) << t.status().message();
  return std::move(*t);
}

// `grainscope ARGS...` in-process: its stdout, the exit code checked.
std::string RunCommand(std::vector<std::string> args) {
  args.insert(args.begin(), "grainscope");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  std::string out, err;
  CaptureOutput(&out, &err);
  const int rc = RunCli(static_cast<int>(argv.size()), argv.data());
  CaptureOutput(nullptr, nullptr);
  EXPECT_EQ(rc, 0) << fmt::format("{}: {}", fmt::join(args, " "), err);
  return out;
}

class CliThreads : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::path(::testing::TempDir()) / fmt::format("gs-cli-threads-{}", getpid()));
    fs::remove_all(*dir_);
    fs::create_directories(*dir_);
    ASSERT_TRUE(WriteTrace(Ranks(), (*dir_ / "ranks.gst").string()).ok());  // a rank directory
    ASSERT_TRUE(WriteTrace(Ranks(), (*dir_ / "ranks.otf2").string()).ok());
    ASSERT_TRUE(WriteTrace(Threads(), (*dir_ / "threads.otf2").string()).ok());
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  static std::string Path(std::string_view name) { return (*dir_ / name).string(); }

  // Each command on `trace` at --threads 1 and 4: the same bytes, and not nothing.
  static void ExpectSameOnFourThreads(const std::string& trace) {
    const std::vector<std::vector<std::string>> commands = {
        {"info", "-f", "json"},   {"critpath", "-f", "json"}, {"critpath", "-f", "csv"},  {"waits", "-f", "json"},
        {"waits", "-f", "csv"},   {"gantt", "-f", "json"},    {"taskgraph", "-f", "json"}, {"replay", "-f", "json"},
        {"report", "-f", "json"}, {"dump", "-f", "json"}};
    for (const std::vector<std::string>& command : commands) {
      SCOPED_TRACE(fmt::format("{} {}", fmt::join(command, " "), trace));
      std::vector<std::string> args = command;
      args.insert(args.begin() + 1, trace);
      args.insert(args.end(), {"--threads", "1"});
      const std::string one = RunCommand(args);
      args.back() = "4";
      const std::string four = RunCommand(args);
      EXPECT_FALSE(one.empty());
      EXPECT_TRUE(one == four) << "outputs of " << one.size() << " and " << four.size() << " bytes differ";
    }
  }

  static fs::path* dir_;
};
fs::path* CliThreads::dir_ = nullptr;

TEST_F(CliThreads, ARankDirectoryGivesTheSameBytesOnOneAndFourThreads) { ExpectSameOnFourThreads(Path("ranks.gst")); }

TEST_F(CliThreads, AnOtf2RankTraceGivesTheSameBytesOnOneAndFourThreads) { ExpectSameOnFourThreads(Path("ranks.otf2")); }

TEST_F(CliThreads, AThreadTraceGivesTheSameBytesOnOneAndFourThreads) { ExpectSameOnFourThreads(Path("threads.otf2")); }

// The waits the thread trace holds are many (the writers chunk their rows by 8192).
TEST_F(CliThreads, TheTracesHoldSeveralChunksOfWaits) {
  const std::string csv = RunCommand({"waits", Path("threads.otf2"), "-f", "csv"});
  EXPECT_GT(std::count(csv.begin(), csv.end(), '\n'), 8192 * 2);
}

}  // namespace
}  // namespace grainscope::cli
