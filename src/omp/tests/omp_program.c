/* An OpenMP program (issue 21), recorded only through libgrainscope-omp: 4 threads; a parallel
 * loop of 8 iterations where iteration i works (i + 1) ms (static schedule: thread t gets
 * iterations 2t and 2t + 1, so the implicit barrier waits for thread 3); then a parallel region
 * where each thread works 2 ms in a critical section (a lock handed over 3 times) and meets an
 * explicit barrier. Built with clang -fopenmp against LLVM's libomp. */
#include <omp.h>
#include <stdio.h>
#include <time.h>

static void work_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

int main(void) {
  int sum = 0;
#pragma omp parallel for num_threads(4) schedule(static, 2) reduction(+ : sum)
  for (int i = 0; i < 8; ++i) {
    work_ms(i + 1);
    sum += i;
  }
#pragma omp parallel num_threads(4)
  {
#pragma omp critical
    {
      work_ms(2);
      ++sum;
    }
#pragma omp barrier
  }
  printf("sum %d\n", sum);
  return sum == 32 ? 0 : 1;
}
