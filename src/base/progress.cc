#include "base/progress.h"

#include <atomic>

namespace grainscope::progress {
namespace {

std::atomic<const char*> g_phase{nullptr};
std::atomic<uint64_t> g_done{0};
std::atomic<uint64_t> g_total{0};
std::atomic<uint64_t> g_base{0};
thread_local bool t_muted = false;

}  // namespace

void Begin(const char* phase, uint64_t total) {
  if (t_muted) return;
  g_done.store(0, std::memory_order_relaxed);
  g_base.store(0, std::memory_order_relaxed);
  g_total.store(total, std::memory_order_relaxed);
  g_phase.store(phase, std::memory_order_release);
}

void SetBase(uint64_t base) {
  if (t_muted) return;
  g_base.store(base, std::memory_order_relaxed);
  Advance(0);
}

void Advance(uint64_t done) {
  if (t_muted) return;
  done += g_base.load(std::memory_order_relaxed);
  uint64_t seen = g_done.load(std::memory_order_relaxed);
  while (done > seen && !g_done.compare_exchange_weak(seen, done, std::memory_order_relaxed)) {
  }
}

void AddDone(uint64_t units) { g_done.fetch_add(units, std::memory_order_relaxed); }

MuteThisThread::MuteThisThread() : was_muted_(t_muted) { t_muted = true; }
MuteThisThread::~MuteThisThread() { t_muted = was_muted_; }

Snapshot Read() {
  Snapshot s;
  s.phase = g_phase.load(std::memory_order_acquire);
  s.done = g_done.load(std::memory_order_relaxed);
  s.total = g_total.load(std::memory_order_relaxed);
  return s;
}

}  // namespace grainscope::progress
