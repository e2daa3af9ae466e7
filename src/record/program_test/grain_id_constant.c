/* Compiled (not run) by the ctests record_grain_id_*_c: in C a static descriptor's initialiser
 * must be constant, so GS_DEFINE_GRAIN with a run-time id does not compile either; the run-time
 * form is a grain site and gs_grain_begin_id. */
#include <grainscope/trace.h>

int main(int argc, char** argv) {
  (void)argv;
  for (int i = 0; i < argc; ++i) {
#if defined(GS_TEST_DEFINE_GRAIN_RUN_TIME_ID)
    GS_DEFINE_GRAIN(task, "task", i);
    gs_region_begin(&task);
    gs_region_end(&task);
#else
    GS_DEFINE_GRAIN(setup, "setup", 1);
    GS_DEFINE_GRAIN_SITE(task, "task");
    gs_region_begin(&setup);
    gs_region_end(&setup);
    gs_grain_begin_id(&task, i);
    gs_grain_end_id(&task, i);
#endif
  }
  return 0;
}
