// The on-the-fly critical path and overhead compensation (record/onthefly.h) against the
// post-mortem analyses (ComputeCriticalPath, Compensate) on the same run's trace.
#include <cmath>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

#include "analysis/compensate/compensate.h"
#include "analysis/critpath/critpath.h"
#include "base/numbers.h"
#include "grainscope/trace.h"
#include "record/onthefly.h"
#include "pi_bca.h"
#include "record/test_util.h"

namespace grainscope::record {
namespace {

GS_DEFINE_GRAIN(g_work, "work", 1);
GS_DEFINE_GRAIN(g_stage, "stage", 2);
GS_DEFINE_REGION(g_tail, "tail");
GS_DEFINE_MESSAGE(g_p2c, "produced");
GS_DEFINE_MESSAGE(g_c2m, "consumed");

void Spin(std::chrono::nanoseconds d) {
  const auto until = std::chrono::steady_clock::now() + d;
  while (std::chrono::steady_clock::now() < until) {
  }
}

// A channel in the program's own terms: the instrumentation marks its use as messages.
class Channel {
 public:
  explicit Channel(gs_name* name) : name_(name) {}
  void Send(int v) {
    gs_send_begin(gs_message_id(name_), sizeof v, GS_NO_PEER);
    {
      std::lock_guard lock(mu_);
      q_.push_back(v);
    }
    cv_.notify_one();
    gs_send_end(gs_message_id(name_));
  }
  int Receive() {
    gs_recv_begin(gs_message_id(name_));
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !q_.empty(); });
    const int v = q_.front();
    q_.pop_front();
    lock.unlock();
    gs_recv_end(gs_message_id(name_), sizeof v, GS_NO_PEER);
    return v;
  }

 private:
  gs_name* name_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<int> q_;
};

// producer -> consumer -> main, with work of varying length on each, so the path crosses
// threads at some messages and stays on one at others.
void RunPipeline(int rounds) {
  Channel p2c(&g_p2c), c2m(&g_c2m);
  std::thread producer([&] {
    gs_thread_name("producer");
    for (int i = 0; i < rounds; ++i) {
      gs_region_begin(&g_work);
      Spin(std::chrono::microseconds(20 + 15 * (i % 3)));
      gs_region_end(&g_work);
      p2c.Send(i);
    }
  });
  std::thread consumer([&] {
    gs_thread_name("consumer");
    for (int i = 0; i < rounds; ++i) {
      const int v = p2c.Receive();
      gs_region_begin(&g_stage);
      Spin(std::chrono::microseconds(v % 4 == 0 ? 60 : 10));
      gs_region_end(&g_stage);
      c2m.Send(v);
    }
  });
  for (int i = 0; i < rounds; ++i) (void)c2m.Receive();
  gs_region_begin(&g_tail);
  Spin(std::chrono::microseconds(100));
  gs_region_end(&g_tail);
  producer.join();
  consumer.join();
}

int64_t MetadataNs(const Trace& t, std::string_view key) {
  const std::optional<int64_t> v = ParseScaledNs(t.Metadata(key), 1);
  EXPECT_TRUE(v.has_value()) << key << " = '" << t.Metadata(key) << "'";
  return v.value_or(-1);
}

// The on-the-fly totals against ComputeCriticalPath and Compensate on the same run's trace.
void ExpectAgreement(const Trace& t, const OnTheFlyTotals& otf) {
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_TRUE(cp.ok()) << cp.status().message();
  Result<Compensation> comp = Compensate(t);
  ASSERT_TRUE(comp.ok()) << comp.status().message();
  // The calibration has a fraction (1.27 ns on a fast clock): the clamping below must use it, or a
  // 1 ns segment under a 1.27 ns overhead is counted neither as clamped nor as near the overhead.
  const double overhead_exact = comp->overhead_per_event_ns;
  const auto overhead = static_cast<int64_t>(std::ceil(overhead_exact));
  // What the replay's clamping at zero keeps of the overhead: a segment shorter than one overhead
  // loses only its length (the piggyback's x counts a full overhead for it).
  uint64_t events = 0;
  double clamped_exact = 0;
  int64_t near_overhead = 0;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    events += ev.size();
    for (EventIndex e = 1; e < ev.size(); ++e) {
      const TimeNs d = ev.time[e] - ev.time[e - 1];
      if (d > 0 && static_cast<double>(d) < overhead_exact) clamped_exact += overhead_exact - static_cast<double>(d);
      if (d > 0 && static_cast<double>(d) <= overhead_exact + 1) ++near_overhead;  // 1 ns of rounding changes the clamp
    }
  }
  const auto clamped = static_cast<int64_t>(std::ceil(clamped_exact));

  std::printf("on the fly: cp %lld measured %lld compensated %lld | post mortem: cp %lld measured %lld "
              "compensated %lld naive %lld | overhead %.2f ns, %llu events, %zu path segments, clamped %lld ns\n",
              (long long)otf.critical_path_ns, (long long)otf.measured_ns, (long long)otf.compensated_ns,
              (long long)cp->length_ns, (long long)cp->measured_ns, (long long)comp->compensated_ns,
              (long long)comp->naive_ns, overhead_exact, (unsigned long long)events, cp->path.size(), (long long)clamped);
  EXPECT_NEAR(otf.measured_ns, cp->measured_ns, 2);
  // Critical path: both sum the same tick differences, with the same definition of waiting; the
  // post-mortem side rounds every event's time to whole ns, so each stretch of the path may be
  // 1 ns off (the clock's resolution after conversion). Tolerance: 1 ns per path segment plus one
  // per-event overhead (far tighter than the "overhead x events on the path"). Observed:
  // 0-2 ns on paths of ~900 segments.
  const int64_t cp_tolerance = static_cast<int64_t>(cp->path.size()) + overhead;
  EXPECT_NEAR(otf.critical_path_ns, cp->length_ns, cp_tolerance);
  // Compensation: the replay clamps every segment at zero, so a segment shorter than one overhead
  // loses only its length where the piggyback counts a whole overhead (`clamped` sums the
  // difference), 1 ns of rounding for each segment about one overhead long, 1 ns per message
  // edge and the overhead once. Observed: 40-130 ns
  // on a 12-22 ms run with 3202 events.
  // The on-the-fly side takes the overhead off in ticks, converted with the start-up estimate of
  // the TSC rate (runtime.cc: a >= 0.2 ms window), the post-mortem side in ns: where that estimate
  // is off (1.8 % on a VM whose CLOCK_MONOTONIC is slewed against the TSC), the two differ by that
  // fraction of the total overhead. 3 % of it is allowed.
  const auto rate_estimate = static_cast<int64_t>(std::ceil(0.03 * overhead_exact * static_cast<double>(events)));
  const int64_t comp_tolerance =
      clamped + near_overhead + static_cast<int64_t>(t.messages().size()) + overhead + rate_estimate;
  EXPECT_NEAR(otf.compensated_ns, comp->compensated_ns, comp_tolerance);
  EXPECT_GT(otf.measured_ns - otf.compensated_ns, 0);  // the run was instrumented: something is taken off
}

TEST(OnTheFly, CriticalPathAndCompensationAgreeWithPostMortem) {
  ScratchDir dir;
  const std::string path = dir.File("pipeline.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  RunPipeline(200);
  Close();
  const OnTheFlyTotals otf = LastOnTheFlyTotals();
  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 3u);
  EXPECT_EQ(otf.unmatched_receives, 0u);
  EXPECT_EQ(MetadataNs(t, "onthefly_critical_path_ns"), otf.critical_path_ns);
  EXPECT_EQ(MetadataNs(t, "onthefly_compensated_ns"), otf.compensated_ns);
  ExpectAgreement(t, otf);
}

TEST(OnTheFly, PiExampleAgreesWithPostMortem) {
  // The seed's pi program: processor ids set first (records that are not events), seven grains
  // on two threads, messages between them.
  ScratchDir dir;
  const std::string path = dir.File("pi.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  pi_bca::Options o;
  o.grain_scale = 20;
  const pi_bca::Outcome r = pi_bca::Run(o);
  Close();
  EXPECT_NEAR(r.pi, 3.14159265, 1e-6);
  const OnTheFlyTotals otf = LastOnTheFlyTotals();
  Trace t = MustRead(path);
  EXPECT_EQ(otf.unmatched_receives, 0u);
  ExpectAgreement(t, otf);
}

TEST(OnTheFly, AgreesAcrossBlockHandOversAndRingWraps) {
  // 2 blocks of 4096 records per thread: the producer's 60 k events wrap the ring many times, so
  // the first event's time and the event count must survive block hand-over.
  ScratchDir dir;
  const std::string path = dir.File("wrap.gst");
  Options o = TestOptions(path);
  o.buffer_kib = 128;
  ASSERT_TRUE(Open(o));
  Channel c2m(&g_c2m);
  std::thread producer([&] {
    for (int i = 0; i < 30'000; ++i) {
      gs_region_begin(&g_work);
      Spin(std::chrono::nanoseconds(i % 7 == 0 ? 200 : 0));
      gs_region_end(&g_work);
      if (i % 10'000 == 9'999) c2m.Send(i);
    }
  });
  for (int k = 0; k < 3; ++k) (void)c2m.Receive();
  producer.join();
  Close();
  const OnTheFlyTotals otf = LastOnTheFlyTotals();
  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(t.Metadata("dropped_events"), "0");
  EXPECT_EQ(otf.unmatched_receives, 0u);
  ExpectAgreement(t, otf);
}

GS_DEFINE_GRAIN_SITE(g_item, "item");

// Grains with ids beyond 32 bits are one event in two slots (a GrainSlot follows): the delay x
// counts events, not slots, and a thread's last event is the record, not its slot (each
// thread's stream ends with one).
TEST(OnTheFly, AgreesWithGrainIdsInContinuationSlots) {
  ScratchDir dir;
  const std::string path = dir.File("wide.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  Channel c2m(&g_c2m);
  std::thread producer([&] {
    for (int64_t i = 0; i < 3000; ++i) {
      gs_grain_begin_id(&g_item, (int64_t{1} << 40) + i);
      Spin(std::chrono::nanoseconds(i % 5 == 0 ? 2000 : 100));
      gs_grain_end_id(&g_item, (int64_t{1} << 40) + i);
      if (i % 1000 == 999) c2m.Send(static_cast<int>(i));
    }
    gs_grain_begin_id(&g_item, -1);
    Spin(std::chrono::microseconds(30));
    gs_grain_end_id(&g_item, -1);
  });
  for (int k = 0; k < 3; ++k) (void)c2m.Receive();
  producer.join();
  gs_grain_begin_id(&g_item, -2);
  Spin(std::chrono::microseconds(50));
  gs_grain_end_id(&g_item, -2);
  Close();
  const OnTheFlyTotals otf = LastOnTheFlyTotals();
  Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 2u);
  EXPECT_EQ(otf.unmatched_receives, 0u);
  ExpectAgreement(t, otf);
}

GS_DEFINE_MESSAGE(g_never_sent, "never sent");
GS_DEFINE_MESSAGE(g_many, "many");

// 20 000 messages in flight at once: more than the mailbox arena populated at open holds
// (record/mailbox.h), so the last ones live in memory mapped when needed. Every receive must find
// its own send's piggyback; the next trace starts with empty mailboxes (the arena is reused).
TEST(OnTheFly, EveryMessageFindsItsSendBeyondTheArenaAndNotInTheNextTrace) {
  ScratchDir dir;
  const std::string path = dir.File("many.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  constexpr int kMessages = 20'000;
  Channel many(&g_many);
  std::thread producer([&] {
    gs_thread_name("producer");
    for (int i = 0; i < kMessages; ++i) {
      gs_region_begin(&g_work);
      Spin(std::chrono::nanoseconds(i % 5 == 0 ? 300 : 0));
      gs_region_end(&g_work);
      many.Send(i);
    }
  });
  producer.join();
  for (int i = 0; i < kMessages; ++i) ASSERT_EQ(many.Receive(), i);
  Close();
  const OnTheFlyTotals otf = LastOnTheFlyTotals();
  Trace t = MustRead(path);
  EXPECT_EQ(t.messages().size(), static_cast<size_t>(kMessages));
  EXPECT_EQ(otf.unmatched_receives, 0u);
  ExpectAgreement(t, otf);

  const std::string next = dir.File("next.gst");
  ASSERT_TRUE(Open(TestOptions(next)));
  gs_recv_begin(gs_message_id(&g_many));
  gs_recv_end(gs_message_id(&g_many), 0, GS_NO_PEER);
  Close();
  EXPECT_EQ(LastOnTheFlyTotals().unmatched_receives, 1u);
}

TEST(OnTheFly, ReceiveWithoutSendIsCountedAndAddsNothing) {
  ScratchDir dir;
  const std::string path = dir.File("unmatched.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  gs_region_begin(&g_tail);
  Spin(std::chrono::microseconds(50));
  gs_region_end(&g_tail);
  gs_recv_begin(gs_message_id(&g_never_sent));
  gs_recv_end(gs_message_id(&g_never_sent), 0, GS_NO_PEER);
  Close();
  const OnTheFlyTotals otf = LastOnTheFlyTotals();
  EXPECT_EQ(otf.unmatched_receives, 1u);
  Trace t = MustRead(path);
  EXPECT_EQ(t.Metadata("onthefly_unmatched_receives"), "1");
  // One thread, no waiting: the critical path is the whole span.
  EXPECT_EQ(otf.critical_path_ns, otf.measured_ns);
  EXPECT_GE(otf.critical_path_ns, 50'000);
}

TEST(OnTheFly, ReportsOnStderrWhenAsked) {
  ScratchDir dir;
  const std::string path = dir.File("report.gst");
  Options o = TestOptions(path);
  o.report = true;
  testing::internal::CaptureStderr();
  ASSERT_TRUE(Open(o));
  gs_region_begin(&g_tail);
  gs_region_end(&g_tail);
  Close();
  const std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("grainscope: on the fly: critical path"), std::string::npos) << err;
}

}  // namespace
}  // namespace grainscope::record

