/* A serial program: one grain of 50 ms, nothing before or after it. Recorded, its EPA report
 * must say speedup 1.0: the runtime's start-up before the first event is not the program's
 * time (serial_speedup.py). */
#include <grainscope/trace.h>
#include <time.h>

GS_DEFINE_GRAIN(g_work, "work", 1);

static double NowMs(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(void) {
  gs_region_begin(&g_work);
  const double start = NowMs();
  volatile double x = 0;
  while (NowMs() - start < 50.0)
    for (int i = 0; i < 1000; ++i) x += i;
  gs_region_end(&g_work);
  return 0;
}
