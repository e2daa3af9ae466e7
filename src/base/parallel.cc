#include "base/parallel.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdlib>
#include <string_view>
#include <thread>
#include <vector>

#include "base/progress.h"

namespace grainscope {

namespace {
std::atomic<unsigned> g_threads{0};
}  // namespace

void SetThreads(unsigned n) { g_threads.store(n, std::memory_order_relaxed); }

unsigned Threads(unsigned requested) {
  unsigned n = requested;
  if (n == 0) n = g_threads.load(std::memory_order_relaxed);
  if (n == 0) {
    if (const char* env = std::getenv("GRAINSCOPE_THREADS")) {
      const std::string_view s(env);
      unsigned v = 0;
      auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec == std::errc() && end == s.data() + s.size()) n = v;
    }
  }
  if (n == 0) n = std::max(1u, std::thread::hardware_concurrency());
  return std::min(n, kMaxThreads);
}

namespace {
// Set while a thread runs a ParallelFor task: a ParallelFor inside one (a rank file's part checks
// its locations) runs on that thread alone, not on threads x threads.
thread_local bool t_in_task = false;
}  // namespace

void ParallelFor(size_t n, unsigned threads, const std::function<void(size_t)>& task) {
  const size_t workers = t_in_task ? std::min<size_t>(1, n) : std::min<size_t>(std::max(threads, 1u), n);
  std::atomic<size_t> next{0};
  auto work = [&] {
    const bool outer = t_in_task;
    t_in_task = true;
    struct Restore {
      bool value;
      ~Restore() { t_in_task = value; }
    } restore{outer};
    progress::MuteThisThread mute;
    for (size_t i = next.fetch_add(1, std::memory_order_relaxed); i < n; i = next.fetch_add(1, std::memory_order_relaxed)) {
      task(i);
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(workers > 0 ? workers - 1 : 0);
  for (size_t w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
}

}  // namespace grainscope
