#include "compensation_workload.h"

#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
#include <thread>

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
  std::atomic<int> produced{0};
  std::atomic<bool> go{false};
  std::atomic<int> ready{0};  // both threads on a processor before the clock starts
  Outcome out;
  double producer_sum = 0, consumer_sum = 0;
  int64_t batch_total = 0, wait_total = 0;
  Clock::time_point start, end;

  std::thread producer([&] {
    PinTo(0);
    ready.fetch_add(1, std::memory_order_acq_rel);
    while (!go.load(std::memory_order_acquire)) {
    }
    double v = 1;
    for (int r = 0; r < o.rounds; ++r) {
      const Clock::time_point b0 = Clock::now();
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
      batch_total += Ns(Clock::now() - b0);
      gs_send_begin(gs_message_id(&g_batch), sizeof r, 1);
      produced.store(r + 1, std::memory_order_release);
      gs_send_end(gs_message_id(&g_batch));
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
  out.producer_batch_ns = static_cast<double>(batch_total) / o.rounds;
  out.consumer_wait_ns = static_cast<double>(wait_total) / o.rounds;
  out.checksum = producer_sum + consumer_sum;
  return out;
}

}  // namespace COMP_WORKLOAD_NAMESPACE
