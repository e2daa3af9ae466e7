/* A C program using the installed recording library: both APIs, two threads. */
#include <grainscope/seed_compat.h>
#include <grainscope/trace.h>
#include <pthread.h>
#include <stdio.h>

GS_DEFINE_GRAIN(worker_grain, "worker", 1);
GS_DEFINE_MESSAGE(done_msg, "done");

static void* worker(void* arg) {
  (void)arg;
  gs_thread_name("worker");
  gs_region_begin(&worker_grain);
  gs_region_end(&worker_grain);
  gs_send_begin(gs_message_id(&done_msg), 4, 0);
  gs_send_end(gs_message_id(&done_msg));
  return NULL;
}

int main(void) {
  pthread_t t;
  initialize_clock();
  get_grain_start_time(1, 0);
  get_grain_stop_time(1, 0);
  pthread_create(&t, NULL, worker, NULL);
  pthread_join(t, NULL);
  gs_recv_begin(gs_message_id(&done_msg));
  gs_recv_end(gs_message_id(&done_msg), 4, 1);
  printf("recorded\n");
  return 0;
}
