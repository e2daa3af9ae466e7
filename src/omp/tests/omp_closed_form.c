/* OpenMP programs with closed-form answers (issue 31), recorded through libgrainscope-omp; built
 * with clang -fopenmp against LLVM's libomp, and again with -DGS_WITH_MPI as hybrid MPI+OpenMP
 * programs (each rank runs the same pattern, then an MPI_Allreduce per iteration). Work is slept,
 * not computed, so that the figures hold on a loaded 2-core machine.
 *   serial     10 x (5 ms of parallel work on 2 threads + 20 ms of serial work on the master): the
 *              serial work is on the critical path, the worker idle between the regions
 *   imbalance  10 regions on 2 threads: one thread works 5 ms, the other 10 ms (the master the
 *              slower one in odd regions): 5 ms of barrier waiting per region, 50 ms in all
 *   nested     an outer team of 2 threads, each forking an inner team of 2 that works 5 ms; then
 *              one thread creates 4 tasks of 5 ms and waits for them (taskwait)
 * Each run ends with an empty parallel region: libomp never reports the end of a worker's last
 * implicit barrier, so that barrier must not be one the checks measure. */
#include <omp.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#ifdef GS_WITH_MPI
#include <mpi.h>
#endif

static void work_ms(double ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)((ms - 1000 * (long)(ms / 1000)) * 1e6)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

static void after_iteration(void) {
#ifdef GS_WITH_MPI
  int one = 1, sum = 0;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
#endif
}

static void serial(void) {
  for (int i = 0; i < 10; ++i) {
#pragma omp parallel num_threads(2)
    work_ms(5);
    work_ms(20);
    after_iteration();
  }
}

static void imbalance(void) {
  for (int i = 0; i < 10; ++i) {
#pragma omp parallel num_threads(2)
    work_ms(omp_get_thread_num() == i % 2 ? 5 : 10);
    after_iteration();
  }
}

static void nested(void) {
  omp_set_max_active_levels(2);
#pragma omp parallel num_threads(2)
  {
#pragma omp parallel num_threads(2)
    work_ms(5);
  }
#pragma omp parallel num_threads(2)
#pragma omp single
  {
    for (int t = 0; t < 4; ++t) {
#pragma omp task
      work_ms(5);
    }
#pragma omp taskwait
  }
  after_iteration();
}

int main(int argc, char** argv) {
#ifdef GS_WITH_MPI
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#endif
  const char* mode = argc > 1 ? argv[1] : "serial";
  if (strcmp(mode, "serial") == 0) serial();
  else if (strcmp(mode, "imbalance") == 0) imbalance();
  else if (strcmp(mode, "nested") == 0) nested();
  else {
    fprintf(stderr, "usage: %s serial|imbalance|nested\n", argv[0]);
    return 2;
  }
#pragma omp parallel num_threads(2)
  {
  }
#ifdef GS_WITH_MPI
  MPI_Finalize();
#endif
  return 0;
}
