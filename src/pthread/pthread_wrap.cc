// libgrainscope-pthread: records a threaded program's synchronisation without changing it
// (LD_PRELOAD, or linked before libc): pthread_create/join, mutexes, read-write locks, spin locks,
// condition variables and barriers, through the recording API's sync events
// (include/grainscope/trace.h, model/thread_sync.h).
//
// What is recorded, and what it costs an uncontended call:
//   * a lock (mutex, rwlock, spin lock) is first tried (trylock). Taken at once, nothing is
//     recorded: the cost is the trylock, which is what an uncontended lock does anyway. Otherwise
//     the lock is marked contended (a lock-free table of addresses), and the request, the blocking
//     lock and the acquisition are recorded. Every unlock of a lock marked contended records its
//     release (a hash probe per unlock: a few ns), so the hand-over edges exist for the
//     acquisitions that waited; a lock never contended costs its unlock one table probe.
//   * condition waits and barrier waits record their begin and end, signals and broadcasts
//     themselves (these calls exist to wait or to wake); a barrier's participant count comes from
//     pthread_barrier_init.
//   * thread creation records the create (parent) and the begin and end (child, through a start
//     routine wrapped around the program's), and pthread_join its begin and end.
// Calls made from libgrainscope itself (its flusher thread and its own locks) and from this
// library pass straight through: a caller inside either library's code is recognised by its
// return address.
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "grainscope/trace.h"

// decltype(&::pthread_mutex_lock) and friends carry glibc's nonnull attributes, which a template
// argument drops: harmless here (the pointers are only called with what the program passed).
#pragma GCC diagnostic ignored "-Wignored-attributes"

namespace {

// ---- the real functions ---------------------------------------------------------------------

template <typename F>
F Next(const char* name) {
  return reinterpret_cast<F>(dlsym(RTLD_NEXT, name));
}

// The next definition of `name`, looked up once (a plain load afterwards, no guard: a race only
// looks it up twice). On the uncontended path every nanosecond shows.
template <typename F>
struct RealFunction {
  const char* name;
  F f = nullptr;
  F get() {
    F p = __atomic_load_n(&f, __ATOMIC_RELAXED);
    if (__builtin_expect(p == nullptr, 0)) {
      p = Next<F>(name);
      __atomic_store_n(&f, p, __ATOMIC_RELAXED);
    }
    return p;
  }
};
#define GS_REAL(name)                                                      \
  static RealFunction<decltype(&::name)> real_##name##_{#name, nullptr};   \
  const auto real = real_##name##_.get()

// ---- callers inside grainscope's own libraries ------------------------------------------------

struct Range {
  uintptr_t begin = 0, end = 0;
  bool contains(uintptr_t a) const { return a >= begin && a < end; }
};
Range g_self, g_runtime;

// The executable segment of the library holding `symbol`.
Range CodeOf(const void* symbol) {
  Dl_info info;
  Range r;
  if (dladdr(symbol, &info) == 0 || info.dli_fbase == nullptr) return r;
  struct Search {
    uintptr_t base;
    Range* out;
  } search{reinterpret_cast<uintptr_t>(info.dli_fbase), &r};
  dl_iterate_phdr(
      [](dl_phdr_info* phdr, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (phdr->dlpi_addr != s->base) return 0;
        for (int i = 0; i < phdr->dlpi_phnum; ++i) {
          const ElfW(Phdr)& h = phdr->dlpi_phdr[i];
          if (h.p_type != PT_LOAD || !(h.p_flags & PF_X)) continue;
          s->out->begin = phdr->dlpi_addr + h.p_vaddr;
          s->out->end = s->out->begin + h.p_memsz;
          return 1;
        }
        return 0;
      },
      &search);
  return r;
}

// Set by the library's constructor, before the program runs; a call before it (another library's
// constructor) counts as the program's.
__attribute__((constructor)) void FindOwnCode() {
  g_self = CodeOf(reinterpret_cast<const void*>(&CodeOf));
  g_runtime = CodeOf(reinterpret_cast<const void*>(&gs_trace_enabled));
}

bool Internal(const void* return_address) {
  const auto a = reinterpret_cast<uintptr_t>(return_address);
  return g_self.contains(a) || g_runtime.contains(a);
}

#define GS_INTERNAL_CALLER() Internal(__builtin_return_address(0))

// ---- locks that were ever contended -----------------------------------------------------------

// Open addressing over addresses, insert-only (a lock once contended stays marked; memory reused
// for another lock at the same address only costs that lock its release records).
constexpr size_t kContendedSlots = 1 << 14;
std::atomic<uintptr_t> g_contended[kContendedSlots];

size_t SlotOf(uintptr_t a) { return static_cast<size_t>((a * 0x9E3779B97F4A7C15ull) >> 50) & (kContendedSlots - 1); }

void MarkContended(const void* lock) {
  const auto a = reinterpret_cast<uintptr_t>(lock);
  for (size_t i = SlotOf(a), n = 0; n < kContendedSlots; i = (i + 1) & (kContendedSlots - 1), ++n) {
    uintptr_t cur = g_contended[i].load(std::memory_order_relaxed);
    if (cur == a) return;
    if (cur == 0 && g_contended[i].compare_exchange_strong(cur, a, std::memory_order_relaxed)) return;
    if (cur == a) return;
  }
}

bool Contended(const void* lock) {
  const auto a = reinterpret_cast<uintptr_t>(lock);
  for (size_t i = SlotOf(a), n = 0; n < kContendedSlots; i = (i + 1) & (kContendedSlots - 1), ++n) {
    const uintptr_t cur = g_contended[i].load(std::memory_order_relaxed);
    if (cur == a) return true;
    if (cur == 0) return false;
  }
  return false;
}

// A blocking lock call: the try first, then, contended, the recorded wait.
template <typename Try, typename Lock>
int LockRecorded(const void* lock, Try try_lock, Lock blocking_lock) {
  if (try_lock() == 0) return 0;
  MarkContended(lock);
  gs_lock_request(lock);
  const int rc = blocking_lock();
  if (rc == 0) gs_lock_acquired(lock);
  return rc;
}

// A spin lock (a volatile int) as the object it is recorded under: its address.
const void* SpinObject(pthread_spinlock_t* l) { return reinterpret_cast<const void*>(reinterpret_cast<uintptr_t>(l)); }

// ---- threads ----------------------------------------------------------------------------------

struct Start {
  void* (*routine)(void*);
  void* arg;
  uint64_t id;
};

void EndThread(void* start) {
  gs_thread_end(static_cast<Start*>(start)->id);
  std::free(start);
}

void* Trampoline(void* p) {
  auto* start = static_cast<Start*>(p);
  gs_thread_begin(start->id);
  void* result = nullptr;
  pthread_cleanup_push(EndThread, start);  // also on pthread_exit and cancellation
  result = start->routine(start->arg);
  pthread_cleanup_pop(1);
  return result;
}

std::mutex g_threads_mutex;
std::unordered_map<pthread_t, uint64_t>* g_thread_ids = nullptr;  // leaked: threads may outlive main

// ---- barriers' participant counts ---------------------------------------------------------------

std::mutex g_barriers_mutex;
std::unordered_map<const void*, unsigned>* g_barrier_counts = nullptr;

unsigned BarrierCount(const void* b) {
  std::lock_guard<std::mutex> lock(g_barriers_mutex);
  if (g_barrier_counts == nullptr) return 0;
  auto it = g_barrier_counts->find(b);
  return it == g_barrier_counts->end() ? 0 : it->second;
}

}  // namespace

extern "C" {

int pthread_create(pthread_t* thread, const pthread_attr_t* attr, void* (*routine)(void*), void* arg) {
  GS_REAL(pthread_create);
  if (GS_INTERNAL_CALLER()) return real(thread, attr, routine, arg);
  auto* start = static_cast<Start*>(std::malloc(sizeof(Start)));
  if (start == nullptr) return real(thread, attr, routine, arg);
  *start = Start{routine, arg, gs_thread_create()};
  const int rc = real(thread, attr, Trampoline, start);
  if (rc != 0) {
    std::free(start);
    return rc;
  }
  std::lock_guard<std::mutex> lock(g_threads_mutex);
  if (g_thread_ids == nullptr) g_thread_ids = new std::unordered_map<pthread_t, uint64_t>();
  (*g_thread_ids)[*thread] = start->id;
  return rc;
}

int pthread_join(pthread_t thread, void** result) {
  GS_REAL(pthread_join);
  uint64_t id = 0;
  if (!GS_INTERNAL_CALLER()) {
    std::lock_guard<std::mutex> lock(g_threads_mutex);
    if (g_thread_ids != nullptr) {
      auto it = g_thread_ids->find(thread);
      if (it != g_thread_ids->end()) {
        id = it->second;
        g_thread_ids->erase(it);
      }
    }
  }
  if (id == 0) return real(thread, result);
  gs_thread_join_begin(id);
  const int rc = real(thread, result);
  gs_thread_join_end(id);
  return rc;
}

int pthread_mutex_lock(pthread_mutex_t* m) {
  GS_REAL(pthread_mutex_lock);
  static RealFunction<decltype(&::pthread_mutex_trylock)> try_pthread_mutex_trylock_{"pthread_mutex_trylock", nullptr};
  const auto try_lock = try_pthread_mutex_trylock_.get();
  if (GS_INTERNAL_CALLER()) return real(m);
  return LockRecorded(m, [&] { return try_lock(m); }, [&] { return real(m); });
}

int pthread_mutex_unlock(pthread_mutex_t* m) {
  GS_REAL(pthread_mutex_unlock);
  if (!GS_INTERNAL_CALLER() && Contended(m)) gs_lock_release(m);
  return real(m);
}

int pthread_rwlock_rdlock(pthread_rwlock_t* l) {
  GS_REAL(pthread_rwlock_rdlock);
  static RealFunction<decltype(&::pthread_rwlock_tryrdlock)> try_pthread_rwlock_tryrdlock_{"pthread_rwlock_tryrdlock", nullptr};
  const auto try_lock = try_pthread_rwlock_tryrdlock_.get();
  if (GS_INTERNAL_CALLER()) return real(l);
  return LockRecorded(l, [&] { return try_lock(l); }, [&] { return real(l); });
}

int pthread_rwlock_wrlock(pthread_rwlock_t* l) {
  GS_REAL(pthread_rwlock_wrlock);
  static RealFunction<decltype(&::pthread_rwlock_trywrlock)> try_pthread_rwlock_trywrlock_{"pthread_rwlock_trywrlock", nullptr};
  const auto try_lock = try_pthread_rwlock_trywrlock_.get();
  if (GS_INTERNAL_CALLER()) return real(l);
  return LockRecorded(l, [&] { return try_lock(l); }, [&] { return real(l); });
}

int pthread_rwlock_unlock(pthread_rwlock_t* l) {
  GS_REAL(pthread_rwlock_unlock);
  if (!GS_INTERNAL_CALLER() && Contended(l)) gs_lock_release(l);
  return real(l);
}

int pthread_spin_lock(pthread_spinlock_t* l) {
  GS_REAL(pthread_spin_lock);
  static RealFunction<decltype(&::pthread_spin_trylock)> try_pthread_spin_trylock_{"pthread_spin_trylock", nullptr};
  const auto try_lock = try_pthread_spin_trylock_.get();
  if (GS_INTERNAL_CALLER()) return real(l);
  return LockRecorded(SpinObject(l), [&] { return try_lock(l); }, [&] { return real(l); });
}

int pthread_spin_unlock(pthread_spinlock_t* l) {
  GS_REAL(pthread_spin_unlock);
  if (!GS_INTERNAL_CALLER() && Contended(SpinObject(l))) gs_lock_release(SpinObject(l));
  return real(l);
}

int pthread_cond_wait(pthread_cond_t* c, pthread_mutex_t* m) {
  GS_REAL(pthread_cond_wait);
  if (GS_INTERNAL_CALLER()) return real(c, m);
  gs_cond_wait_begin(c);
  const int rc = real(c, m);
  gs_cond_wait_end(c);
  return rc;
}

int pthread_cond_timedwait(pthread_cond_t* c, pthread_mutex_t* m, const struct timespec* until) {
  GS_REAL(pthread_cond_timedwait);
  if (GS_INTERNAL_CALLER()) return real(c, m, until);
  gs_cond_wait_begin(c);
  const int rc = real(c, m, until);
  gs_cond_wait_end(c);
  return rc;
}

int pthread_cond_signal(pthread_cond_t* c) {
  GS_REAL(pthread_cond_signal);
  if (!GS_INTERNAL_CALLER()) gs_cond_signal(c);
  return real(c);
}

int pthread_cond_broadcast(pthread_cond_t* c) {
  GS_REAL(pthread_cond_broadcast);
  if (!GS_INTERNAL_CALLER()) gs_cond_broadcast(c);
  return real(c);
}

int pthread_barrier_init(pthread_barrier_t* b, const pthread_barrierattr_t* attr, unsigned count) {
  GS_REAL(pthread_barrier_init);
  const int rc = real(b, attr, count);
  if (rc == 0) {
    std::lock_guard<std::mutex> lock(g_barriers_mutex);
    if (g_barrier_counts == nullptr) g_barrier_counts = new std::unordered_map<const void*, unsigned>();
    (*g_barrier_counts)[b] = count;
  }
  return rc;
}

int pthread_barrier_wait(pthread_barrier_t* b) {
  GS_REAL(pthread_barrier_wait);
  if (GS_INTERNAL_CALLER()) return real(b);
  gs_barrier_enter(b, BarrierCount(b));
  const int rc = real(b);
  gs_barrier_leave(b);
  return rc;
}

}  // extern "C"
