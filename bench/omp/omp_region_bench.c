/* What libgrainscope-omp (the OMPT tool) costs an OpenMP program (issue 21): ns per empty
 * parallel region, per explicit barrier inside one region, per uncontended critical section and
 * per worksharing loop of one iteration per thread, each timed over N repetitions on the team
 * OMP_NUM_THREADS gives. Built with clang -fopenmp (LLVM's libomp); run plain and with
 * OMP_TOOL_LIBRARIES=libgrainscope-omp.so (bench/omp/omp_region_bench.sh compares them); prints
 * one JSON line. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 20000;
  volatile long sink = 0;
  int threads = 0;
#pragma omp parallel
  {
#pragma omp single
    threads = omp_get_num_threads();
  }
  double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
#pragma omp parallel
    { sink += omp_get_thread_num(); }
  }
  const double region_ns = (now_ns() - t0) / (double)n;

  double barrier_ns = 0;
#pragma omp parallel
  {
#pragma omp barrier
    const double b0 = now_ns();
    for (long i = 0; i < n; ++i) {
#pragma omp barrier
    }
#pragma omp master
    barrier_ns = (now_ns() - b0) / (double)n;
  }

  /* Uncontended: one thread takes it (the master), the others do not enter. */
  double critical_ns = 0;
  t0 = now_ns();
  for (long i = 0; i < n * 10; ++i) {
#pragma omp critical
    { sink += 1; }
  }
  critical_ns = (now_ns() - t0) / (double)(n * 10);

  double loop_ns = 0;
#pragma omp parallel
  {
    const double l0 = now_ns();
    for (long i = 0; i < n; ++i) {
#pragma omp for schedule(static)
      for (int k = 0; k < threads; ++k) sink += k;
    }
#pragma omp master
    loop_ns = (now_ns() - l0) / (double)n;
  }
  printf("{\"threads\": %d, \"repetitions\": %ld, \"parallel_region_ns\": %.1f, \"barrier_ns\": %.1f, "
         "\"critical_ns\": %.1f, \"for_loop_ns\": %.1f}\n",
         threads, n, region_ns, barrier_ns, critical_ns, loop_ns);
  return 0;
}
