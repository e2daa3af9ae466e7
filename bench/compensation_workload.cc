#include "compensation_workload.h"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "grainscope/trace.h"

namespace COMP_WORKLOAD_NAMESPACE {
namespace {

GS_DEFINE_GRAIN(g_tiny, "tiny", 1);
GS_DEFINE_GRAIN(g_consume, "consume", 2);
GS_DEFINE_MESSAGE(g_batch, "batch");

using Clock = std::chrono::steady_clock;

// Puts the calling thread on processor `cpu` (if there are two): the experiment needs producer
// and consumer to run at once, and a scheduler under load may otherwise stack them on one.
void PinTo(int cpu) {
  if (std::thread::hardware_concurrency() < 2) return;
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  pthread_setaffinity_np(pthread_self(), sizeof set, &set);
}

int64_t Ns(Clock::duration d) { return std::chrono::duration_cast<std::chrono::nanoseconds>(d).count(); }

// The median time from one send to the next: a round that lost the processor to another job is
// an outlier the median ignores and a mean does not.
double MedianPeriod(const std::vector<Clock::time_point>& at) {
  if (at.size() < 2) return 0;
  std::vector<int64_t> periods;
  for (size_t i = 1; i < at.size(); ++i) periods.push_back(Ns(at[i] - at[i - 1]));
  std::nth_element(periods.begin(), periods.begin() + periods.size() / 2, periods.end());
  return static_cast<double>(periods[periods.size() / 2]);
}

// Dependent arithmetic the compiler cannot fold or vectorise away.
inline double Work(double v, int iterations) {
  for (int i = 0; i < iterations; ++i) {
    v = v * 1.0000001 + 0.5;
    asm volatile("" : "+x"(v));
  }
  return v;
}

// The same, compiled once: identical machine code in both builds (Options::inline_work).
__attribute__((noinline)) double OutOfLineWork(double v, int iterations) { return Work(v, iterations); }

}  // namespace

Outcome Run(const Options& o) {
  // The flag the consumer spins on and the start flag have cache lines of their own, apart from
  // the consumer's running sums (written every round): false sharing in the test program would
  // add a cost of its layout, not of recording, to both builds unevenly.
  alignas(64) std::atomic<int> produced{0};
  alignas(64) std::atomic<bool> go{false};
  std::atomic<int> ready{0};  // both threads on a processor before the clock starts
  Outcome out;
  double producer_sum = 0, consumer_sum = 0;
  int64_t wait_total = 0;
  // One clock read per round, after its send: the rounds' periods, as the trace's sends give them.
  std::vector<Clock::time_point> sent_at(static_cast<size_t>(o.rounds));
  Clock::time_point start, end;

  std::thread producer([&] {
    PinTo(0);
    ready.fetch_add(1, std::memory_order_acq_rel);
    while (!go.load(std::memory_order_acquire)) {
    }
    double v = 1;
    for (int r = 0; r < o.rounds; ++r) {
      if (o.inline_work) {
        for (int g = 0; g < o.grains_per_round; ++g) {
          gs_region_begin(&g_tiny);
          v = Work(v, o.work);
          gs_region_end(&g_tiny);
        }
      } else {
        for (int g = 0; g < o.grains_per_round; ++g) {
          gs_region_begin(&g_tiny);
          v = OutOfLineWork(v, o.work);
          gs_region_end(&g_tiny);
        }
      }
      gs_send_begin(gs_message_id(&g_batch), sizeof r, 1);
      produced.store(r + 1, std::memory_order_release);
      gs_send_end(gs_message_id(&g_batch));
      sent_at[static_cast<size_t>(r)] = Clock::now();
    }
    producer_sum = v;
  });
  std::thread consumer([&] {
    PinTo(1);
    ready.fetch_add(1, std::memory_order_acq_rel);
    while (!go.load(std::memory_order_acquire)) {
    }
    double v = 2;
    for (int r = 0; r < o.rounds; ++r) {
      const Clock::time_point w0 = Clock::now();
      gs_recv_begin(gs_message_id(&g_batch));
      while (produced.load(std::memory_order_acquire) <= r) {
      }
      gs_recv_end(gs_message_id(&g_batch), sizeof r, 0);
      wait_total += Ns(Clock::now() - w0);
      gs_region_begin(&g_consume);
      v = o.inline_work ? Work(v, o.consumer_work) : OutOfLineWork(v, o.consumer_work);
      gs_region_end(&g_consume);
    }
    end = Clock::now();
    consumer_sum = v;
  });
  while (ready.load(std::memory_order_acquire) < 2) std::this_thread::yield();
  start = Clock::now();
  go.store(true, std::memory_order_release);
  producer.join();
  consumer.join();
  out.span_ns = Ns(end - start);
  out.round_ns = MedianPeriod(sent_at);
  out.mean_round_ns = o.rounds > 1 ? static_cast<double>(Ns(sent_at.back() - sent_at.front())) / (o.rounds - 1) : 0;
  out.consumer_wait_ns = static_cast<double>(wait_total) / o.rounds;
  out.checksum = producer_sum + consumer_sum;
  return out;
}

}  // namespace COMP_WORKLOAD_NAMESPACE
