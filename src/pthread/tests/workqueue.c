/* A pthread work queue (issue 21), recorded only through libgrainscope-pthread (no API calls):
 * the main thread creates 4 workers and pushes 16 items into a queue guarded by a mutex, signalling
 * a condition variable for each; a worker takes an item (waiting on the condition while the queue
 * is empty), works 2 ms on it holding nothing, and counts it under a second mutex held 3 ms (the
 * contended lock: items arrive 1 ms apart, so a worker always asks for it while another holds it);
 * after the queue closes, the workers meet at a barrier after 20(w + 1) ms of work of their own
 * (a spread of 60 ms, far more than the few ms the count mutex staggers their loops' ends by),
 * and the main thread joins them. */
#include <pthread.h>
#include <stdio.h>
#include <time.h>

enum { kWorkers = 4, kItems = 16 };

static pthread_mutex_t g_queue_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t g_queue_cond = PTHREAD_COND_INITIALIZER;
static pthread_mutex_t g_count_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t g_barrier;
static int g_queued = 0, g_closed = 0, g_done = 0;

static void work_ms(int ms) {
  struct timespec ts = {0, ms * 1000000L};
  nanosleep(&ts, NULL);
}

static void* worker(void* arg) {
  const int w = (int)(long)arg;
  for (;;) {
    pthread_mutex_lock(&g_queue_mutex);
    while (g_queued == 0 && !g_closed) pthread_cond_wait(&g_queue_cond, &g_queue_mutex);
    if (g_queued == 0 && g_closed) {
      pthread_mutex_unlock(&g_queue_mutex);
      break;
    }
    --g_queued;
    pthread_mutex_unlock(&g_queue_mutex);
    work_ms(2);
    pthread_mutex_lock(&g_count_mutex);
    work_ms(3);
    ++g_done;
    pthread_mutex_unlock(&g_count_mutex);
  }
  work_ms(20 * (w + 1));
  pthread_barrier_wait(&g_barrier);
  return NULL;
}

int main(void) {
  pthread_t threads[kWorkers];
  pthread_barrier_init(&g_barrier, NULL, kWorkers);
  for (long w = 0; w < kWorkers; ++w) pthread_create(&threads[w], NULL, worker, (void*)w);
  for (int i = 0; i < kItems; ++i) {
    work_ms(1);
    pthread_mutex_lock(&g_queue_mutex);
    ++g_queued;
    pthread_cond_signal(&g_queue_cond);
    pthread_mutex_unlock(&g_queue_mutex);
  }
  pthread_mutex_lock(&g_queue_mutex);
  g_closed = 1;
  pthread_cond_broadcast(&g_queue_cond);
  pthread_mutex_unlock(&g_queue_mutex);
  for (int w = 0; w < kWorkers; ++w) pthread_join(threads[w], NULL);
  pthread_barrier_destroy(&g_barrier);
  printf("%d items done\n", g_done);
  return g_done == kItems ? 0 : 1;
}
