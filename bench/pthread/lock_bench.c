/* What libgrainscope-pthread costs a program (issue 21): ns per uncontended mutex lock/unlock pair
 * on one thread, and per condition signal with no waiter, timed over N calls. Run plain and with
 * the library preloaded (bench/pthread/lock_bench.sh compares them); prints one JSON line. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

int main(int argc, char** argv) {
  const long n = argc > 1 ? atol(argv[1]) : 10000000;
  pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t c = PTHREAD_COND_INITIALIZER;
  double t0 = now_ns();
  for (long i = 0; i < n; ++i) {
    pthread_mutex_lock(&m);
    pthread_mutex_unlock(&m);
  }
  const double pair_ns = (now_ns() - t0) / (double)n;
  t0 = now_ns();
  const long signals = n / 10;
  for (long i = 0; i < signals; ++i) pthread_cond_signal(&c);
  const double signal_ns = (now_ns() - t0) / (double)signals;
  printf("{\"lock_unlock_pair_ns\": %.2f, \"cond_signal_ns\": %.2f, \"pairs\": %ld}\n", pair_ns, signal_ns, n);
  return 0;
}
