// Compiled (not run) by the ctests record_grain_id_*: a grain with a static descriptor takes a
// constant id, and a run-time id must not compile, because the descriptor is initialised once and
// would keep the first instance's id for every later one (issue 17). Run-time ids go through
// GS_GRAIN_ID / gs_grain_begin_id. Each -D selects one mistake; without one, the right forms.
#include <grainscope/trace.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

struct Task {
  int64_t id;
};

int main(int argc, char**) {
  std::vector<Task> tasks(static_cast<size_t>(argc), Task{3});
#if defined(GS_TEST_GRAIN_RUN_TIME_ID)
  for (auto it = tasks.begin(); it != tasks.end(); ++it) {
    GS_GRAIN("task", it->id);
  }
#elif defined(GS_TEST_DEFINE_GRAIN_RUN_TIME_ID)
  for (const Task& t : tasks) {
    GS_DEFINE_GRAIN(task, "task", t.id);
    gs_region_begin(&task);
    gs_region_end(&task);
  }
#else
  constexpr int kBase = 10;
  enum class Phase { kSetup = 1 };
  for (const Task& t : tasks) {
    GS_GRAIN("task", kBase + 1);
    GS_GRAIN("setup", Phase::kSetup);
    GS_GRAIN_ID("step", t.id);
  }
  GS_DEFINE_GRAIN(merge, "merge", kBase * 2);
  GS_DEFINE_GRAIN_SITE(task_site, "task");
  gs_region_begin(&merge);
  for (const Task& t : tasks) {
    gs_grain_begin_id(&task_site, t.id);
    gs_grain_end_id(&task_site, t.id);
  }
  gs_region_end(&merge);
#endif
  return 0;
}
