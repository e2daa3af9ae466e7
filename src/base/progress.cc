#include "base/progress.h"

#include <atomic>

namespace grainscope::progress {
namespace {

std::atomic<const char*> g_phase{nullptr};
std::atomic<uint64_t> g_done{0};
std::atomic<uint64_t> g_total{0};
std::atomic<uint64_t> g_base{0};

}  // namespace

void Begin(const char* phase, uint64_t total) {
  g_done.store(0, std::memory_order_relaxed);
  g_base.store(0, std::memory_order_relaxed);
  g_total.store(total, std::memory_order_relaxed);
  g_phase.store(phase, std::memory_order_release);
}

void SetBase(uint64_t base) {
  g_base.store(base, std::memory_order_relaxed);
  Advance(0);
}

void Advance(uint64_t done) {
  done += g_base.load(std::memory_order_relaxed);
  uint64_t seen = g_done.load(std::memory_order_relaxed);
  while (done > seen && !g_done.compare_exchange_weak(seen, done, std::memory_order_relaxed)) {
  }
}

Snapshot Read() {
  Snapshot s;
  s.phase = g_phase.load(std::memory_order_acquire);
  s.done = g_done.load(std::memory_order_relaxed);
  s.total = g_total.load(std::memory_order_relaxed);
  return s;
}

}  // namespace grainscope::progress
