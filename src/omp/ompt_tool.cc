// libgrainscope-omp: an OMPT tool (OpenMP 5's tools interface) that records an OpenMP program's
// parallel regions, barriers, worksharing loops, tasks, critical sections and locks through the
// recording API's regions and sync events (include/grainscope/trace.h, model/thread_sync.h).
// LLVM's libomp finds it through OMP_TOOL_LIBRARIES (`grainscope record --openmp -- ./app` sets
// it); GCC's libgomp has no OMPT (docs/recording.md says what to do there).
//
// What each callback records:
//   parallel begin (on the encountering thread): region "omp parallel", thread_create of the team
//     (the team's number, from 1); implicit task begin (every team thread, the master too):
//     thread_begin of the team (fork edges). No join events: the region's implicit barrier joins
//     the team (libomp reports the workers' implicit task ends only after the master has left;
//     a worker's last implicit barrier before the program ends is never left, and is counted as
//     unfinished);
//   barriers (implicit, explicit, the implementation's): region "omp barrier" around
//     barrier_enter / barrier_leave of the team's barrier with the team's size as participants;
//   worksharing loops, sections, single: region "omp loop" / "omp sections" / "omp single";
//   tasks: task_create on creation, task_begin and region "omp task" when first scheduled, their
//     ends when completed; taskwait: region;
//   critical sections and OpenMP locks (mutex_acquire / acquired / released): lock_request /
//     lock_acquired / lock_release of the wait id.
#include GS_OMP_TOOLS_H  // omp-tools.h (src/omp/CMakeLists.txt finds it)

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>

#include "grainscope/trace.h"

namespace {

GS_DEFINE_REGION(r_parallel, "omp parallel");
GS_DEFINE_REGION(r_barrier, "omp barrier");
GS_DEFINE_REGION(r_loop, "omp loop");
GS_DEFINE_REGION(r_sections, "omp sections");
GS_DEFINE_REGION(r_single, "omp single");
GS_DEFINE_REGION(r_taskwait, "omp taskwait");
GS_DEFINE_REGION(r_task, "omp task");

std::atomic<uint64_t> g_next_team{1}, g_next_task{1};

// The teams this thread works in, innermost last (number, size): libomp passes no parallel data
// at an implicit task's end or a barrier's, so the thread remembers its own.
struct TeamOfThread {
  uint64_t team;
  uint32_t size;
};
constexpr int kMaxNesting = 16;
thread_local TeamOfThread t_teams[kMaxNesting];
thread_local int t_depth = 0;
uint64_t CurrentTeam() { return t_depth > 0 ? t_teams[std::min(t_depth, kMaxNesting) - 1].team : 0; }
uint32_t CurrentSize() { return t_depth > 0 ? t_teams[std::min(t_depth, kMaxNesting) - 1].size : 0; }

// Team objects and barrier objects share one number per team (sync objects are per kind).
uint64_t Team(ompt_data_t* parallel) { return parallel != nullptr && parallel->value != 0 ? parallel->value : CurrentTeam(); }

void OnParallelBegin(ompt_data_t*, const ompt_frame_t*, ompt_data_t* parallel, unsigned, int, const void*) {
  parallel->value = g_next_team.fetch_add(1, std::memory_order_relaxed);
  gs_region_begin(&r_parallel);
  gs_thread_create_id(parallel->value << 20);
}

// No join events: a parallel region ends with its implicit barrier, which is the join (libomp
// reports the workers' implicit task ends after the master has left the region).
void OnParallelEnd(ompt_data_t*, ompt_data_t*, int, const void*) { gs_region_end(&r_parallel); }

// The team's thread object: team << 20, so it never meets gs_thread_create's ids (small numbers).
void OnImplicitTask(ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t*, unsigned team_size,
                    unsigned, int flags) {
  if (flags & ompt_task_initial) return;  // the initial task of a thread, not a team's
  if (endpoint == ompt_scope_begin) {
    if (t_depth < kMaxNesting) t_teams[t_depth] = {Team(parallel), team_size};
    ++t_depth;
    gs_thread_begin(CurrentTeam() << 20);
  } else {
    if (t_depth > 0) --t_depth;
  }
}

void OnSyncRegion(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t* parallel, ompt_data_t*,
                  const void*) {
  const bool barrier = kind == ompt_sync_region_barrier || kind == ompt_sync_region_barrier_implicit ||
                       kind == ompt_sync_region_barrier_explicit || kind == ompt_sync_region_barrier_implementation;
  if (barrier) {
    const void* object = reinterpret_cast<const void*>(static_cast<uintptr_t>(CurrentTeam()));
    if (endpoint == ompt_scope_begin) {
      gs_region_begin(&r_barrier);
      gs_barrier_enter(object, CurrentSize());
    } else {
      gs_barrier_leave(object);
      gs_region_end(&r_barrier);
    }
  } else if (kind == ompt_sync_region_taskwait) {
    if (endpoint == ompt_scope_begin) gs_region_begin(&r_taskwait); else gs_region_end(&r_taskwait);
  }
}

void OnWork(ompt_work_t kind, ompt_scope_endpoint_t endpoint, ompt_data_t*, ompt_data_t*, uint64_t, const void*) {
  gs_region* r = nullptr;
  switch (kind) {
    case ompt_work_loop: r = &r_loop; break;
    case ompt_work_sections: r = &r_sections; break;
    case ompt_work_single_executor: r = &r_single; break;
    default: return;
  }
  if (endpoint == ompt_scope_begin) gs_region_begin(r); else gs_region_end(r);
}

void OnTaskCreate(ompt_data_t*, const ompt_frame_t*, ompt_data_t* task, int flags, int, const void*) {
  if (!(flags & ompt_task_explicit)) return;
  task->value = g_next_task.fetch_add(1, std::memory_order_relaxed);
  gs_task_create(task->value);
}

// An explicit task runs inside region "omp task" (its work is the task's, not the barrier's or
// taskwait's it runs in). A task suspended (it waits in a taskwait and runs another task meanwhile)
// stays open: the task it runs nests inside it and completes first, so regions stay nested; when
// the suspended task resumes, nothing is recorded (kStarted marks a task that began).
constexpr uint64_t kStarted = uint64_t{1} << 63;
void OnTaskSchedule(ompt_data_t* prior, ompt_task_status_t status, ompt_data_t* next) {
  if (prior != nullptr && prior->value != 0 && (status == ompt_task_complete || status == ompt_task_late_fulfill)) {
    gs_region_end(&r_task);
    gs_task_end(prior->value & ~kStarted);
  }
  if (next != nullptr && next->value != 0 && !(next->value & kStarted)) {
    gs_task_begin(next->value);
    gs_region_begin(&r_task);
    next->value |= kStarted;
  }
}

const void* Lock(ompt_wait_id_t wait_id) { return reinterpret_cast<const void*>(static_cast<uintptr_t>(wait_id)); }
void OnMutexAcquire(ompt_mutex_t, unsigned, unsigned, ompt_wait_id_t wait_id, const void*) { gs_lock_request(Lock(wait_id)); }
void OnMutexAcquired(ompt_mutex_t, ompt_wait_id_t wait_id, const void*) { gs_lock_acquired(Lock(wait_id)); }
void OnMutexReleased(ompt_mutex_t, ompt_wait_id_t wait_id, const void*) { gs_lock_release(Lock(wait_id)); }

template <typename F>
void Set(ompt_set_callback_t set, ompt_callbacks_t which, F f) {
  set(which, reinterpret_cast<ompt_callback_t>(f));
}

int Initialize(ompt_function_lookup_t lookup, int, ompt_data_t*) {
  auto set = reinterpret_cast<ompt_set_callback_t>(lookup("ompt_set_callback"));
  if (set == nullptr) return 0;
  Set(set, ompt_callback_parallel_begin, &OnParallelBegin);
  Set(set, ompt_callback_parallel_end, &OnParallelEnd);
  Set(set, ompt_callback_implicit_task, &OnImplicitTask);
  Set(set, ompt_callback_sync_region, &OnSyncRegion);
  Set(set, ompt_callback_work, &OnWork);
  Set(set, ompt_callback_task_create, &OnTaskCreate);
  Set(set, ompt_callback_task_schedule, &OnTaskSchedule);
  Set(set, ompt_callback_mutex_acquire, &OnMutexAcquire);
  Set(set, ompt_callback_mutex_acquired, &OnMutexAcquired);
  Set(set, ompt_callback_mutex_released, &OnMutexReleased);
  return 1;  // keep the tool
}

void Finalize(ompt_data_t*) {}

}  // namespace

extern "C" __attribute__((visibility("default"))) ompt_start_tool_result_t* ompt_start_tool(unsigned, const char*) {
  static ompt_start_tool_result_t result = {&Initialize, &Finalize, {0}};
  return &result;
}
