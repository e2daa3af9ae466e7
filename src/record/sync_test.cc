// Threads' synchronisation recorded through the API (issue 21): real threads, a mutex, a
// condition variable and a barrier, recorded -> .gst -> Trace, then the derived structure (edges,
// barrier instances) and the analyses that read it.
#include <pthread.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/replay.h"
#include "analysis/waits/call_sites.h"
#include "analysis/waits/wait_states.h"
#include "grainscope/trace.h"
#include "record/test_util.h"

namespace grainscope::record {
namespace {

void SleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

size_t EdgesOf(const Trace& t, DependencyKind kind) {
  size_t n = 0;
  for (DependencyKind k : t.dependencies().kind) n += k == kind;
  return n;
}

// Four workers, each created and joined by the main thread: three turns each at a mutex held
// 2 ms, then 3(w+1) ms of work and a barrier of the four; meanwhile a consumer waits on a
// condition variable the main thread signals after 10 ms.
TEST(RecordSync, ThreadsLocksConditionAndBarrierBecomeEdgesAndInstances) {
  ScratchDir dir;
  const std::string path = dir.File("sync.gst");
  ASSERT_TRUE(Open(TestOptions(path)));
  constexpr int kWorkers = 4;
  std::mutex mutex;
  pthread_barrier_t barrier;
  pthread_barrier_init(&barrier, nullptr, kWorkers);
  std::mutex queue_mutex;
  std::condition_variable queue_cv;
  bool item = false;

  std::vector<std::thread> threads;
  std::vector<uint64_t> ids;
  for (int w = 0; w < kWorkers; ++w) {
    const uint64_t id = gs_thread_create();
    ids.push_back(id);
    threads.emplace_back([&, w, id] {
      gs_thread_begin(id);
      for (int turn = 0; turn < 3; ++turn) {
        gs_lock_request(&mutex);
        mutex.lock();
        gs_lock_acquired(&mutex);
        SleepMs(2);
        gs_lock_release(&mutex);
        mutex.unlock();
      }
      SleepMs(3 * (w + 1));
      gs_barrier_enter(&barrier, kWorkers);
      pthread_barrier_wait(&barrier);
      gs_barrier_leave(&barrier);
      gs_thread_end(id);
    });
  }
  const uint64_t consumer_id = gs_thread_create();
  std::thread consumer([&] {
    gs_thread_begin(consumer_id);
    std::unique_lock<std::mutex> lock(queue_mutex);
    gs_cond_wait_begin(&queue_cv);
    queue_cv.wait(lock, [&] { return item; });
    gs_cond_wait_end(&queue_cv);
    gs_thread_end(consumer_id);
  });
  SleepMs(10);
  {
    std::lock_guard<std::mutex> lock(queue_mutex);
    item = true;
    gs_cond_signal(&queue_cv);
    queue_cv.notify_one();
  }
  for (int w = 0; w < kWorkers; ++w) {
    gs_thread_join_begin(ids[w]);
    threads[w].join();
    gs_thread_join_end(ids[w]);
  }
  gs_thread_join_begin(consumer_id);
  consumer.join();
  gs_thread_join_end(consumer_id);
  pthread_barrier_destroy(&barrier);
  Close();

  const Trace t = MustRead(path);
  ASSERT_EQ(t.locations().size(), 6u);  // main, 4 workers, the consumer
  EXPECT_EQ(EdgesOf(t, DependencyKind::kFork), 5u);
  EXPECT_EQ(EdgesOf(t, DependencyKind::kJoin), 5u);
  EXPECT_EQ(EdgesOf(t, DependencyKind::kConditionSignal), 1u);
  // 12 critical sections: every acquisition after another thread's release depends on it.
  EXPECT_GE(EdgesOf(t, DependencyKind::kLockHandover), 3u);
  EXPECT_LE(EdgesOf(t, DependencyKind::kLockHandover), 11u);
  ASSERT_EQ(t.collectives().size(), 1u);
  EXPECT_EQ(t.collectives().op[0], CollectiveOp::kBarrier);
  EXPECT_EQ(t.collectives().member_count(CollectiveId(0)), 4u);
  // The barrier: the workers arrive 3 ms apart (plus their turns at the lock); the first three
  // wait about 18 ms in all.
  const WaitStates ws = FindWaitStates(t, FindCallSites(t));
  const TimeNs at_barrier = ws.time_ns[static_cast<int>(WaitKind::kWaitAtBarrier)];
  EXPECT_GE(at_barrier, 12'000'000);
  EXPECT_EQ(ws.count[static_cast<int>(WaitKind::kWaitAtBarrier)], 3u);
  Result<CriticalPath> cp = ComputeCriticalPath(t);
  ASSERT_TRUE(cp.ok()) << cp.status().message();
  Result<ReplayResult> identity = Replay(t, WhatIf());
  ASSERT_TRUE(identity.ok()) << identity.status().message();
  EXPECT_EQ(identity->max_deviation_ns, 0);
}

}  // namespace
}  // namespace grainscope::record
