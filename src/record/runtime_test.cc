// Round trips through the recording API: events recorded -> .gst file -> Trace, with exact counts
// and order per thread, under the buffer, flush and compression settings the runtime offers.
#include <atomic>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "analysis/profile/profile.h"
#include "analysis/taskgraph/taskgraph.h"
#include "grainscope/trace.h"
#include "grainscope/trace.hpp"
#include "record/test_util.h"

namespace grainscope::record {
namespace {

GS_DEFINE_GRAIN(g_outer, "outer", 7);
GS_DEFINE_REGION(g_inner, "inner");
GS_DEFINE_MESSAGE(g_ping, "ping");

TEST(RecordRuntime, RoundTripOneThreadExactEventsInOrder) {
  ScratchDir dir;
  const std::string path = dir.File("one.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  gs_region_begin(&g_outer);
  gs_region_begin(&g_inner);
  gs_marker(gs_intern("halfway"));
  gs_region_end(&g_inner);
  gs_send_begin(gs_message_id(&g_ping), 128, 0);
  gs_send_end(gs_message_id(&g_ping));
  gs_recv_begin(gs_message_id(&g_ping));
  gs_recv_end(gs_message_id(&g_ping), 128, 0);
  gs_region_end(&g_outer);
  Close();

  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 1u);
  const EventColumns& e = t.events(LocationId(0));
  const std::vector<EventKind> expected = {
      EventKind::kEnter, EventKind::kEnter, EventKind::kMarker, EventKind::kLeave,  // outer, inner, marker
      EventKind::kEnter, EventKind::kSend,  EventKind::kLeave,                      // send
      EventKind::kEnter, EventKind::kRecv,  EventKind::kLeave,                      // receive
      EventKind::kLeave};
  ASSERT_EQ(e.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_EQ(e.kind[i], expected[i]) << "event " << i;
  for (size_t i = 1; i < e.size(); ++i) EXPECT_LE(e.time[i - 1], e.time[i]);
  EXPECT_EQ(t.str(t.region(RegionId(e.arg[0])).name), "outer");
  EXPECT_EQ(t.region(RegionId(e.arg[0])).role, RegionRole::kGrain);
  EXPECT_EQ(t.region(RegionId(e.arg[0])).external_id, 7);
  EXPECT_EQ(t.str(t.region(RegionId(e.arg[1])).name), "inner");
  EXPECT_EQ(t.str(StringId(e.arg[2])), "halfway");
  ASSERT_EQ(t.messages().size(), 1u);
  EXPECT_TRUE(t.messages().matched(MessageId(0)));
  EXPECT_EQ(t.messages().bytes[0], 128u);
  // The metadata the analyses and the reports rely on.
  EXPECT_EQ(t.Metadata("dropped_events"), "0");
  EXPECT_EQ(t.Metadata("end"), "exit");
  EXPECT_FALSE(t.Metadata("program").empty());
  EXPECT_FALSE(t.Metadata("host").empty());
  EXPECT_TRUE(t.Metadata("clock") == "tsc" || t.Metadata("clock") == "monotonic");
  EXPECT_GT(std::stod(std::string(t.Metadata("overhead_per_event_ns"))), 0.0);
  EXPECT_TRUE(t.diagnostics().empty());
}

// Many blocks, with and without compression, with and without the background flusher: every
// event arrives, in order.
struct Setting {
  bool compress;
  bool background;
  uint32_t buffer_kib;
};

class RecordSettings : public ::testing::TestWithParam<Setting> {};

TEST_P(RecordSettings, EveryEventArrivesInOrder) {
  ScratchDir dir;
  const std::string path = dir.File("many.gst");
  Options o = TestOptions(path);
  o.compress = GetParam().compress;
  o.background_flush = GetParam().background;
  o.buffer_kib = GetParam().buffer_kib;
  ASSERT_TRUE(Open(o));
  constexpr int kPairs = 150'000;  // 300k records: 73 blocks of 4096
  for (int i = 0; i < kPairs; ++i) {
    gs_region_begin(i % 2 ? &g_inner : &g_outer);
    gs_region_end(i % 2 ? &g_inner : &g_outer);
  }
  Close();
  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 1u);
  const EventColumns& e = t.events(LocationId(0));
  ASSERT_EQ(e.size(), 2u * kPairs);
  const uint32_t outer = e.arg[0], inner = e.arg[2];
  for (int i = 0; i < kPairs; ++i) {
    ASSERT_EQ(e.arg[2 * i], i % 2 ? inner : outer) << i;
    ASSERT_EQ(e.kind[2 * i + 1], EventKind::kLeave) << i;
  }
  EXPECT_EQ(t.Metadata("dropped_events"), "0");
  if (GetParam().compress && GetParam().background) {
    // The flusher compressed at least part of it (it may fall behind: owners then write raw).
    EXPECT_LT(std::filesystem::file_size(path), 2u * kPairs * 16) << "no block was compressed";
  }
}

INSTANTIATE_TEST_SUITE_P(Flush, RecordSettings,
                         ::testing::Values(Setting{true, true, 512}, Setting{false, true, 512},
                                           Setting{false, false, 128}, Setting{true, false, 128}));

TEST(RecordRuntime, ManyThreadsRecordConcurrently) {
  ScratchDir dir;
  const std::string path = dir.File("threads.gst");
  Options o = TestOptions(path);
  o.buffer_kib = 128;  // small rings: owners and the flusher both write blocks
  ASSERT_TRUE(Open(o));
  constexpr int kThreads = 8;
  constexpr int kPairs = 40'000;
  std::vector<std::thread> threads;
  for (int k = 0; k < kThreads; ++k) {
    threads.emplace_back([k] {
      gs_thread_name(("worker " + std::to_string(k)).c_str());
      for (int i = 0; i < kPairs; ++i) {
        GS_SCOPE("body");
        if (i % 1000 == 0) GS_MARKER("tick");
      }
    });
  }
  for (auto& th : threads) th.join();
  Close();

  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), static_cast<size_t>(kThreads));
  for (int k = 0; k < kThreads; ++k) {
    const LocationId loc = FindLocation(t, "worker " + std::to_string(k));
    ASSERT_TRUE(loc.valid()) << k;
    const EventColumns& e = t.events(loc);
    ASSERT_EQ(e.size(), 2u * kPairs + kPairs / 1000);
    size_t i = 0;
    for (int p = 0; p < kPairs; ++p) {
      ASSERT_EQ(e.kind[i++], EventKind::kEnter);
      if (p % 1000 == 0) {
        ASSERT_EQ(e.kind[i++], EventKind::kMarker);
      }
      ASSERT_EQ(e.kind[i++], EventKind::kLeave);
    }
  }
  EXPECT_EQ(t.Metadata("dropped_events"), "0");
}

// A producer and a consumer exchange messages of one name through a queue: every message is
// paired, in FIFO order, with the right sender and receiver.
TEST(RecordRuntime, MessagesArePairedAcrossThreads) {
  ScratchDir dir;
  const std::string path = dir.File("messages.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  std::mutex mu;
  std::condition_variable cv;
  std::deque<int> queue;
  constexpr int kMessages = 2000;
  std::thread producer([&] {
    gs_thread_name("producer");
    for (int i = 0; i < kMessages; ++i) {
      GS_SEND("item", sizeof(int), 1);
      std::lock_guard<std::mutex> lock(mu);
      queue.push_back(i);
      cv.notify_one();
    }
  });
  std::thread consumer([&] {
    gs_thread_name("consumer");
    for (int i = 0; i < kMessages; ++i) {
      GS_RECV(in, "item");
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return !queue.empty(); });
      queue.pop_front();
      in.received(sizeof(int), 0);
    }
  });
  producer.join();
  consumer.join();
  Close();

  Trace t = MustRead(path);
  const LocationId p = FindLocation(t, "producer"), c = FindLocation(t, "consumer");
  ASSERT_TRUE(p.valid() && c.valid());
  const MessageTable& m = t.messages();
  ASSERT_EQ(m.size(), static_cast<size_t>(kMessages));
  for (uint32_t i = 0; i < m.size(); ++i) {
    ASSERT_TRUE(m.matched(MessageId(i))) << i;
    EXPECT_EQ(m.sender[i], p);
    EXPECT_EQ(m.receiver[i], c);
    // A message is received after it is sent.
    EXPECT_LE(t.events(p).time[m.send_event[i]], t.events(c).time[m.recv_event[i]]) << i;
  }
}

// Time zero is the program's first event, not the start of recording: the runtime's start-up
// (clock choice, calibration, the first thread's buffer) and whatever the program did before
// its first event are not idle time of its processors.
TEST(RecordRuntime, TimeZeroIsTheFirstEvent) {
  ScratchDir dir;
  const std::string path = dir.File("origin.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  std::this_thread::sleep_for(std::chrono::milliseconds(5));
  std::thread([] {
    gs_region_begin(&g_outer);
    gs_region_end(&g_outer);
  }).join();
  gs_thread_processor(4);  // not an event: it does not move time zero
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  gs_region_begin(&g_inner);
  gs_region_end(&g_inner);
  Close();
  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(t.origin_ns(), t.start_ns());
  const LocationId first = FindLocation(t, "thread 5");  // after processor 4
  ASSERT_TRUE(first.valid());
  EXPECT_EQ(t.origin_ns(), t.events(first).time[0]);
}

// Threads the program did not number come after the processors it did: a producer thread that
// only sends was "thread 0" (external id 0) beside the worker that called gs_thread_processor(0).
TEST(RecordRuntime, AnUnnumberedThreadDoesNotShareAProcessorsId) {
  ScratchDir dir;
  const std::string path = dir.File("ids.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  std::thread([] { GS_SEND("item", 8, 0); }).join();  // records first: stream 0
  std::thread([] {
    gs_thread_processor(0);
    GS_RECV(in, "item");
    in.received(8, 1);
    GS_GRAIN("work", 1);
  }).join();
  std::thread([] { GS_MARKER("unnumbered too"); }).join();
  Close();
  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 3u);
  const Location& worker = t.location(LocationId(0));
  EXPECT_EQ(t.str(worker.name), "processor 0");
  EXPECT_EQ(worker.external_id, 0);
  EXPECT_EQ(t.str(t.location(LocationId(1)).name), "thread 1");
  EXPECT_EQ(t.location(LocationId(1)).external_id, 1);
  EXPECT_EQ(t.str(t.location(LocationId(2)).name), "thread 2");
  EXPECT_EQ(t.location(LocationId(2)).external_id, 2);
  EXPECT_EQ(t.messages().sender[0], LocationId(1));
}

// A thread that ran as processor 7 in one trace and says so again in the next is processor 7
// there too (the check "once per change" looked at the stream of the closed trace).
TEST(RecordRuntime, TheProcessorIdIsRecordedAgainInANewTrace) {
  ScratchDir dir;
  for (const char* name : {"first.gst", "second.gst"}) {
    const std::string path = dir.File(name);
    ASSERT_TRUE(Open(TestOptions(path)));
    gs_thread_processor(7);
    gs_region_begin(&g_outer);
    gs_region_end(&g_outer);
    Close();
    Trace t = MustRead(path);
    ASSERT_EQ(t.locations().size(), 1u);
    EXPECT_EQ(t.str(t.location(LocationId(0)).name), "processor 7") << name;
  }
}

GS_DEFINE_GRAIN_SITE(g_task, "task");

// The grain id of each instance, given at run time: 100 instances of one call site are one
// region "task" (issue 33: one region per call site), each instance with its own id, in the
// reader and in the EPA report, the Gantt chart and the task graph. (With a static descriptor,
// GS_GRAIN("task", i) in a loop, every instance had the first id.)
TEST(RecordRuntime, GrainIdsGivenAtRunTimeAreDistinctGrains) {
  ScratchDir dir;
  const std::string path = dir.File("ids.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  for (int64_t i = 0; i < 100; ++i) {
    gs_grain_begin_id(&g_task, i);
    gs_grain_end_id(&g_task, i);
  }
  Close();
  Trace t = MustRead(path);
  EXPECT_TRUE(t.diagnostics().empty());
  ASSERT_EQ(t.locations().size(), 1u);
  const EventColumns& e = t.events(LocationId(0));
  ASSERT_EQ(e.size(), 200u);
  ASSERT_EQ(t.instances().size(), 100u);
  for (int64_t i = 0; i < 100; ++i) {
    const EventIndex enter = static_cast<EventIndex>(2 * i);
    ASSERT_EQ(e.kind[enter], EventKind::kEnter);
    ASSERT_EQ(e.kind[enter + 1], EventKind::kLeave);
    ASSERT_EQ(e.arg[enter], e.arg[0]);  // one region
    ASSERT_EQ(e.arg[enter + 1], e.arg[0]);
    EXPECT_EQ(t.InstanceId(LocationId(0), enter), std::optional<int64_t>(i));
    EXPECT_EQ(t.InstanceId(LocationId(0), enter + 1), std::nullopt);  // a Leave has none
  }
  const Region& task = t.region(RegionId(e.arg[0]));
  EXPECT_EQ(t.str(task.name), "task");
  EXPECT_EQ(task.role, RegionRole::kGrain);
  size_t tasks = 0;
  for (const Region& r : t.regions()) tasks += t.str(r.name) == "task";
  EXPECT_EQ(tasks, 1u);

  Result<ExecutionProfile> profile = ComputeProfile(t);
  ASSERT_TRUE(profile.ok()) << profile.status().message();
  ASSERT_EQ(profile->processors.size(), 1u);
  ASSERT_EQ(profile->processors[0].grains.size(), 100u);
  for (int64_t i = 0; i < 100; ++i) EXPECT_EQ(profile->processors[0].grains[i].grain.id, i);
  const std::vector<GanttLane> gantt = BuildGantt(t);
  ASSERT_EQ(gantt.size(), 1u);
  EXPECT_EQ(gantt[0].tasks.size(), 100u);
  Result<TaskGraph> graph = BuildTaskGraph(t);
  ASSERT_TRUE(graph.ok()) << graph.status().message();
  ASSERT_EQ(graph->nodes.size(), 100u);
  EXPECT_TRUE(graph->ids_from_grain_ids);  // the seed's numbering: grain id + 1
  for (uint32_t k = 0; k < 100; ++k) EXPECT_EQ(graph->nodes[k].id, k + 1);
}

// C++: GS_GRAIN_ID in a loop, nested in a grain with a constant id; ids that do not fit the
// packed record (negative, beyond 32 bits) take a continuation slot and come back exact.
TEST(RecordRuntime, GrainIdScopesNestAndKeepEveryId) {
  ScratchDir dir;
  const std::string path = dir.File("scopes.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  const std::vector<int64_t> ids = {7, 0, -5, int64_t{1} << 40, INT64_MIN + 1, 0xffffffff, 7};
  {
    GS_GRAIN("outer", 1);
    for (int64_t id : ids) {
      GS_GRAIN_ID("step", id);
      GS_SCOPE("inner");
    }
  }
  Close();
  Trace t = MustRead(path);
  EXPECT_TRUE(t.diagnostics().empty());
  const EventColumns& e = t.events(LocationId(0));
  ASSERT_EQ(e.size(), 2 + 4 * ids.size());
  EXPECT_EQ(t.region(RegionId(e.arg[0])).external_id, 1);
  EXPECT_EQ(t.InstanceId(LocationId(0), 0), std::nullopt);  // a grain with a constant id
  for (size_t k = 0; k < ids.size(); ++k) {
    const EventIndex i = static_cast<EventIndex>(1 + 4 * k);
    ASSERT_EQ(e.kind[i], EventKind::kEnter);
    const Region& step = t.region(RegionId(e.arg[i]));
    EXPECT_EQ(t.str(step.name), "step");
    EXPECT_EQ(e.arg[i], e.arg[1]);  // one region, the call site
    EXPECT_EQ(t.InstanceId(LocationId(0), i), std::optional<int64_t>(ids[k])) << k;
    EXPECT_EQ(t.str(t.region(RegionId(e.arg[i + 1])).name), "inner");
    ASSERT_EQ(e.kind[i + 3], EventKind::kLeave);
    EXPECT_EQ(e.arg[i + 3], e.arg[i]);
  }
}

// An end naming another id than its begin is counted; the instance keeps the begin's id.
TEST(RecordRuntime, AGrainEndWithAnotherIdIsCounted) {
  ScratchDir dir;
  const std::string path = dir.File("mismatch.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  gs_grain_begin_id(&g_task, 3);
  gs_grain_end_id(&g_task, 4);
  gs_grain_begin_id(&g_task, 5);
  gs_region_end(&g_task);  // a plain end closes it too
  Close();
  Trace t = MustRead(path);
  EXPECT_EQ(t.diagnostics().Count(Diag::kGrainEndMismatch), 1u);
  const EventColumns& e = t.events(LocationId(0));
  ASSERT_EQ(e.size(), 4u);
  EXPECT_EQ(t.InstanceId(LocationId(0), 0), std::optional<int64_t>(3));
  EXPECT_EQ(e.arg[1], e.arg[0]);
  EXPECT_EQ(t.InstanceId(LocationId(0), 2), std::optional<int64_t>(5));
  EXPECT_EQ(e.arg[3], e.arg[2]);
}

TEST(RecordRuntime, ThreadsThatExitEarlyKeepTheirEvents) {
  ScratchDir dir;
  const std::string path = dir.File("exit.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  for (int round = 0; round < 20; ++round) {  // streams of exited threads are reused
    std::thread([] {
      for (int i = 0; i < 100; ++i) {
        GS_SCOPE("short");
      }
    }).join();
  }
  Close();
  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 20u);
  for (const Location& l : t.locations()) {
    EXPECT_EQ(t.events(LocationId(static_cast<uint32_t>(&l - t.locations().data()))).size(), 200u);
  }
}

TEST(RecordRuntime, ReopeningStartsAFreshTraceWithAllDefinitions) {
  ScratchDir dir;
  const std::string first = dir.File("first.gst"), second = dir.File("second.gst");
  ASSERT_TRUE(Open(TestOptions(first)));
  gs_region_begin(&g_outer);
  gs_region_end(&g_outer);
  Close();
  gs_region_begin(&g_outer);  // not recording: dropped silently
  gs_region_end(&g_outer);
  ASSERT_TRUE(Open(TestOptions(second)));
  gs_region_begin(&g_outer);  // registered during the first trace; defined again in the second
  gs_region_begin(&g_inner);
  gs_region_end(&g_inner);
  gs_region_end(&g_outer);
  Close();
  EXPECT_EQ(MustRead(first).event_count(), 2u);
  Trace t = MustRead(second);
  EXPECT_EQ(t.event_count(), 4u);
}

TEST(RecordRuntime, RegionsLeftOpenAtCloseAreClosedAndCounted) {
  ScratchDir dir;
  const std::string path = dir.File("open.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  gs_region_begin(&g_outer);
  Close();
  Trace t = MustRead(path);
  EXPECT_EQ(t.event_count(), 2u);
  EXPECT_EQ(t.diagnostics().Count(Diag::kUnclosedRegions), 1u);
}

TEST(RecordRuntime, DisabledRecordsNothingAndCreatesNoFile) {
  ScratchDir dir;
  const std::string path = dir.File("off.gst");
  Options o = TestOptions(path);
  o.enable = false;
  ASSERT_TRUE(Open(o));
  gs_region_begin(&g_outer);
  gs_region_end(&g_outer);
  EXPECT_EQ(gs_trace_enabled(), 0);
  Close();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(RecordRuntime, MonotonicClockFallback) {
  ScratchDir dir;
  const std::string path = dir.File("mono.gst");
  Options o = TestOptions(path);
  o.clock = "monotonic";
  ASSERT_TRUE(Open(o));
  gs_region_begin(&g_outer);
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  gs_region_end(&g_outer);
  Close();
  Trace t = MustRead(path);
  EXPECT_EQ(t.Metadata("clock"), "monotonic");
  const EventColumns& e = t.events(LocationId(0));
  ASSERT_EQ(e.size(), 2u);
  EXPECT_GE(e.time[1] - e.time[0], 2'000'000);
  EXPECT_LT(e.time[1] - e.time[0], 200'000'000);
}

TEST(RecordRuntime, DirectoryGetsTheDefaultName) {
  ScratchDir dir;
  ASSERT_TRUE(Open(TestOptions(dir.path())));
  gs_marker(gs_intern("m"));
  Close();
  const std::string expected = "grainscope-" + std::string(program_invocation_short_name) + "-" +
                               std::to_string(getpid()) + ".gst";
  EXPECT_EQ(std::string(TracePath()), dir.path() + "/" + expected);
  EXPECT_EQ(MustRead(TracePath()).event_count(), 1u);
}

// Rule one: the recorder replaces only an earlier trace of its own (or an empty file); a user's
// file at the trace path is left byte for byte and recording stays off.
TEST(RecordRuntime, AnExistingFileIsReplacedOnlyWhenItIsATrace) {
  ScratchDir dir;
  const std::string notes = dir.File("notes.gst");
  { std::ofstream(notes) << "my notes\n"; }
  ASSERT_FALSE(Open(TestOptions(notes)));
  EXPECT_EQ(gs_trace_enabled(), 0);
  std::stringstream kept;
  kept << std::ifstream(notes).rdbuf();
  EXPECT_EQ(kept.str(), "my notes\n");

  const std::string trace = dir.File("again.gst");
  for (int run = 1; run <= 2; ++run) {  // the second run replaces the first's trace
    ASSERT_TRUE(Open(TestOptions(trace)));
    for (int i = 0; i < run; ++i) {
      gs_region_begin(&g_outer);
      gs_region_end(&g_outer);
    }
    Close();
    EXPECT_EQ(MustRead(trace).event_count(), 2u * run);
  }
}

TEST(RecordRuntime, UnwritableOutputDisablesRecordingWithoutFailingTheProgram) {
  ASSERT_FALSE(Open(TestOptions("/nonexistent-dir/x/y.gst")));
  gs_region_begin(&g_outer);
  gs_region_end(&g_outer);
  EXPECT_EQ(gs_trace_enabled(), 0);
}

}  // namespace
}  // namespace grainscope::record
