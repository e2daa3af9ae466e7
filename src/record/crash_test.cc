// A program that dies of a signal (or calls exit) still leaves a readable trace holding every
// event it recorded before: the crash child (crash_child.cc) is run in a separate process.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "record/test_util.h"

namespace grainscope::record {
namespace {

struct ChildResult {
  int status = 0;
  std::string trace;
};

// Runs the crash child in `mode` with GRAINSCOPE_TRACE set; with `kill_with`, waits for its
// "ready" line and sends it that signal.
ChildResult RunChild(const ScratchDir& dir, const char* mode, int kill_with = 0) {
  ChildResult r;
  r.trace = dir.File(std::string(mode) + ".gst");
  int out[2];
  EXPECT_EQ(pipe(out), 0);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    setenv("GRAINSCOPE_TRACE", r.trace.c_str(), 1);
    execl(GS_CRASH_CHILD, GS_CRASH_CHILD, mode, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  if (kill_with != 0) {
    char buf[16] = {};
    EXPECT_GT(read(out[0], buf, sizeof buf - 1), 0);
    EXPECT_EQ(std::string(buf), "ready\n");
    kill(pid, kill_with);
  }
  waitpid(pid, &r.status, 0);
  close(out[0]);
  return r;
}

// The events both threads recorded before the end: exact counts.
void ExpectEverythingBeforeTheEnd(const Trace& t) {
  const LocationId main = FindLocation(t, "main"), worker = FindLocation(t, "worker");
  ASSERT_TRUE(main.valid() && worker.valid());
  // worker: 500 pairs, send region enter + send + leave
  EXPECT_EQ(t.events(worker).size(), 1000u + 3u);
  // main: 1000 pairs, receive (enter, recv, leave), "doomed" entered and (closed by the reader or
  // by exit) left.
  EXPECT_EQ(t.events(main).size(), 2000u + 3u + 2u);
  ASSERT_EQ(t.messages().size(), 1u);
  EXPECT_TRUE(t.messages().matched(MessageId(0)));
}

TEST(RecordCrash, SegmentationFault) {
  ScratchDir dir;
  ChildResult r = RunChild(dir, "segv");
  ASSERT_TRUE(WIFSIGNALED(r.status)) << r.status;
  EXPECT_EQ(WTERMSIG(r.status), SIGSEGV);
  Trace t = MustRead(r.trace);
  ExpectEverythingBeforeTheEnd(t);
  EXPECT_EQ(t.Metadata("end"), "signal 11");
  EXPECT_EQ(t.diagnostics().Count(Diag::kUnclosedRegions), 1u);
}

// The race the single run above meets about once in 70: the flusher claims the joined worker's
// last block just after the crash handler waited for writers, sees the crash in its write and
// gives the block back; a handler that made one pass lost the block, and with it the worker's
// stream. Forty crashes in a row find that (each ~10 ms).
TEST(RecordCrash, RepeatedCrashesKeepEveryThreadsEvents) {
  ScratchDir dir;
  for (int run = 0; run < 40; ++run) {
    ChildResult r = RunChild(dir, "segv");
    ASSERT_TRUE(WIFSIGNALED(r.status)) << "run " << run;
    Trace t = MustRead(r.trace);
    SCOPED_TRACE("run " + std::to_string(run));
    ExpectEverythingBeforeTheEnd(t);
    if (HasFailure()) return;
  }
}

TEST(RecordCrash, Abort) {
  ScratchDir dir;
  ChildResult r = RunChild(dir, "abort");
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGABRT);
  Trace t = MustRead(r.trace);
  ExpectEverythingBeforeTheEnd(t);
  EXPECT_EQ(t.Metadata("end"), "signal 6");
}

TEST(RecordCrash, TerminatedWhileWaiting) {
  ScratchDir dir;
  ChildResult r = RunChild(dir, "wait", SIGTERM);
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGTERM);
  Trace t = MustRead(r.trace);
  ExpectEverythingBeforeTheEnd(t);
  EXPECT_EQ(t.Metadata("end"), "signal 15");
}

TEST(RecordCrash, ExitFromInsideARegion) {
  ScratchDir dir;
  ChildResult r = RunChild(dir, "exit");
  ASSERT_TRUE(WIFEXITED(r.status));
  EXPECT_EQ(WEXITSTATUS(r.status), 3);
  Trace t = MustRead(r.trace);
  ExpectEverythingBeforeTheEnd(t);
  EXPECT_EQ(t.Metadata("end"), "exit");
}

TEST(RecordCrash, FaultOnAnotherThreadWhileMainRecords) {
  ScratchDir dir;
  ChildResult r = RunChild(dir, "worker_segv");
  ASSERT_TRUE(WIFSIGNALED(r.status));
  EXPECT_EQ(WTERMSIG(r.status), SIGSEGV);
  Trace t = MustRead(r.trace);
  const LocationId main = FindLocation(t, "main");
  ASSERT_TRUE(main.valid());
  EXPECT_GT(t.events(main).size(), 2005u);  // it kept recording "spin" for 20 ms
  EXPECT_EQ(t.Metadata("end"), "signal 11");
}

TEST(RecordCrash, KilledWithoutWarningLeavesAReadablePrefix) {
  ScratchDir dir;
  ChildResult r = RunChild(dir, "wait", SIGKILL);
  ASSERT_TRUE(WIFSIGNALED(r.status));
  Result<Trace> t = ReadGstFile(r.trace);
  ASSERT_TRUE(t.ok()) << t.status().message();  // events still in memory are lost, not the file
  EXPECT_EQ(t->Metadata("end"), "missing");
  EXPECT_EQ(t->diagnostics().Count(Diag::kTraceNotFinished), 1u);
}

}  // namespace
}  // namespace grainscope::record
