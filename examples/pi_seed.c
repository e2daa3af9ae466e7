/* example_pi_seed: appendix C of the seed (the code SuperGlue generated for the pi approximation
 * on two processors) in C, with the 1989 timing routine names (grainscope/seed_compat.h) and
 * POSIX threads standing in for Linda's eval/out/in.
 *
 * The 1989 workflow, trace on standard output:
 *   GRAINSCOPE_SEED_TEXT=1 GRAINSCOPE_ENABLE=0 build/bin/example_pi_seed > pi.txt
 *   build/bin/grainscope report pi.txt
 * or the native trace: GRAINSCOPE_TRACE=pi.gst build/bin/example_pi_seed */
#include <grainscope/seed_compat.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* ---- a tuple space of named slots (Linda's out and in), enough for this program ---- */
enum { kMaxTuples = 16 };
struct tuple {
  char name[16];
  double values[3];
  int full;
};
static struct tuple space[kMaxTuples];
static pthread_mutex_t space_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t space_changed = PTHREAD_COND_INITIALIZER;

static void out(const char* name, double a, double b, double c) {
  pthread_mutex_lock(&space_lock);
  for (int i = 0; i < kMaxTuples; ++i) {
    if (!space[i].full) {
      snprintf(space[i].name, sizeof space[i].name, "%s", name);
      space[i].values[0] = a;
      space[i].values[1] = b;
      space[i].values[2] = c;
      space[i].full = 1;
      break;
    }
  }
  pthread_cond_broadcast(&space_changed);
  pthread_mutex_unlock(&space_lock);
}

static void in(const char* name, double* a, double* b, double* c) {
  pthread_mutex_lock(&space_lock);
  for (;;) {
    for (int i = 0; i < kMaxTuples; ++i) {
      if (space[i].full && strcmp(space[i].name, name) == 0) {
        if (a) *a = space[i].values[0];
        if (b) *b = space[i].values[1];
        if (c) *c = space[i].values[2];
        space[i].full = 0;
        pthread_mutex_unlock(&space_lock);
        return;
      }
    }
    pthread_cond_wait(&space_changed, &space_lock);
  }
}

/* ---- the grains, as in appendix C ---- */
static void df0(void) {
  int n, start[6], stop[6];
  double interval;
  get_grain_start_time(1, 0);
  n = 100000;
  interval = 1.0 / n;
  for (int k = 1; k <= 5; ++k) {
    start[k] = k == 1 ? 1 : (k - 1) * 20000;
    stop[k] = k == 5 ? n : k * 20000 - 1;
  }
  get_grain_stop_time(1, 0);
  get_send_begin_time(0, "superGlue06");
  out("superGlue06", interval, 0, 0);
  get_send_end_time(0, "superGlue06");
  for (int k = 5; k >= 1; --k) {
    char name[16];
    snprintf(name, sizeof name, "superGlue0%d", k);
    get_send_begin_time(0, name);
    out(name, interval, start[k], stop[k]);
    get_send_end_time(0, name);
  }
}

/* Worker k of appendix C (df1 ... df5) on `processor`. */
static void worker(int k, int processor) {
  char in_name[16], out_name[16];
  double interval, first, last, x, result = 0.0;
  snprintf(in_name, sizeof in_name, "superGlue0%d", k);
  snprintf(out_name, sizeof out_name, "superGlue%d6", k);
  get_recv_begin_time(k, in_name);
  in(in_name, &interval, &first, &last);
  get_recv_end_time(k, in_name);
  get_grain_start_time(processor, k);
  for (int i = (int)first; i <= (int)last; ++i) {
    x = (i - 0.5) * interval;
    result += 4.0 / (1.0 + x * x);
  }
  get_grain_stop_time(processor, k);
  get_send_begin_time(k, out_name);
  out(out_name, result, 0, 0);
  get_send_end_time(k, out_name);
}

static void df6(void) {
  double sum = 0, part, interval;
  for (int k = 5; k >= 1; --k) {
    char name[16];
    snprintf(name, sizeof name, "superGlue%d6", k);
    get_recv_begin_time(6, name);
    in(name, &part, NULL, NULL);
    get_recv_end_time(6, name);
    sum += part;
  }
  get_recv_begin_time(6, "superGlue06");
  in("superGlue06", &interval, NULL, NULL);
  get_recv_end_time(6, "superGlue06");
  get_grain_start_time(1, 6);
  printf("pi approximation %20.15lf\n", sum * interval);
  get_grain_stop_time(1, 6);
}

static void* gant1(void* arg) {
  (void)arg;
  df0();
  worker(2, 1);
  worker(3, 1);
  worker(4, 1);
  df6();
  return NULL;
}

static void* gant2(void* arg) {
  (void)arg;
  worker(1, 2);
  worker(5, 2);
  return NULL;
}

int main(void) {
  pthread_t p1, p2;
  initialize_clock();
  pthread_create(&p1, NULL, gant1, NULL); /* eval(gant1()) */
  pthread_create(&p2, NULL, gant2, NULL); /* eval(gant2()) */
  pthread_join(p1, NULL);                 /* in("gant_done") */
  pthread_join(p2, NULL);
  return 0;
}
