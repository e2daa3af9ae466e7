/* grainscope recording API (C). docs/recording.md is the user guide.
 *
 * A program marks what each thread does: grains and other regions (begin/end through a static
 * descriptor per call site, so the hot path stores a 32-bit id, never a string), the sending and
 * receiving of named messages, and point markers. Every thread records into its own buffer
 * without locks, allocation or system calls; full buffers are written by a background thread (or,
 * when it falls behind, by the owning thread) to a .gst trace file.
 *
 * Run-time control, read when the first event is recorded:
 *   GRAINSCOPE_TRACE=<path>   output file (or an existing directory to put the default name in);
 *                             default ./grainscope-<program>-<pid>.gst
 *   GRAINSCOPE_ENABLE=0       record nothing (every call returns at once)
 *   GRAINSCOPE_COMPRESS=0     write event blocks uncompressed (default: zstd when it keeps up)
 *   GRAINSCOPE_SIGNALS=0      do not install the fatal-signal handlers that save the trace
 *
 * Compile-time: defining GRAINSCOPE_DISABLE before including this header turns every call and
 * macro into nothing; the program then need not link the library.
 *
 * Usage:
 *   GS_DEFINE_GRAIN(worker_grain, "worker", 3);     // static descriptor: name, constant grain id
 *   GS_DEFINE_GRAIN_SITE(task_grain, "task");       // a site whose grain id is given per instance
 *   GS_DEFINE_MESSAGE(result_msg, "result");
 *   gs_region_begin(&worker_grain);
 *   ... compute ...
 *   gs_region_end(&worker_grain);
 *   for (t = tasks; t != NULL; t = t->next) {
 *     gs_grain_begin_id(&task_grain, t->id);  run(t);  gs_grain_end_id(&task_grain, t->id);
 *   }
 *   gs_send_begin(gs_message_id(&result_msg), sizeof result, GS_NO_PEER);
 *   queue_push(&q, result);
 *   gs_send_end(gs_message_id(&result_msg));
 *
 * No function here fails loudly: a recording problem never stops the program. Errors (the output
 * cannot be created, the disk is full) are reported once on stderr and recording stops.
 */
#ifndef GRAINSCOPE_TRACE_H_
#define GRAINSCOPE_TRACE_H_

#include <stdint.h>

#ifdef __cplusplus
/* A grain id used as a template argument must be a constant expression: a run-time id fails to
 * compile, and the error names this template (see GS_DEFINE_GRAIN). */
template <long long kGrainId>
struct gs_grain_id_must_be_a_constant_use_gs_grain_begin_id_or_GS_GRAIN_ID {
  static constexpr long long value = kGrainId;
};
#define GS_CONSTANT_GRAIN_ID_(grain_id) \
  (gs_grain_id_must_be_a_constant_use_gs_grain_begin_id_or_GS_GRAIN_ID<static_cast<long long>(grain_id)>::value)
#else
#define GS_CONSTANT_GRAIN_ID_(grain_id) (grain_id)
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* What a region stands for; analyses tell computation (grains) from other regions. */
enum gs_region_role {
  GS_ROLE_FUNCTION = 0,      /* a code region: function, loop, phase */
  GS_ROLE_GRAIN = 1,         /* a unit of computation, a node of the task graph */
  GS_ROLE_COMMUNICATION = 2, /* a communication call the program marks itself */
  GS_ROLE_OTHER = 3
};

#define GS_NO_PEER (-1)
#define GS_NO_EXTERNAL_ID INT64_MIN

/* A region descriptor: one static object per call site (use GS_DEFINE_REGION / GS_DEFINE_GRAIN).
 * The runtime assigns `id` when the region is first entered; do not write it. */
typedef struct gs_region {
  const char* name;
  const char* file;
  uint32_t line;
  uint32_t role;       /* enum gs_region_role */
  int64_t external_id; /* the program's own id (a grain id), or GS_NO_EXTERNAL_ID */
  uint32_t id;         /* 0 until registered */
} gs_region;

/* A message name (or marker label) known at compile time: one static object per call site. */
typedef struct gs_name {
  const char* text;
  uint32_t id; /* 0 until registered */
} gs_name;

#define GS_REGION_INIT(name, role, external_id) \
  { (name), __FILE__, (uint32_t)__LINE__, (uint32_t)(role), (int64_t)(external_id), 0u }
/* Descriptors may be left unused when GRAINSCOPE_DISABLE compiles the calls out. */
#if defined(__GNUC__) || defined(__clang__)
#define GS_UNUSED __attribute__((unused))
#else
#define GS_UNUSED
#endif
#define GS_DEFINE_REGION(var, name) \
  static gs_region var GS_UNUSED = GS_REGION_INIT(name, GS_ROLE_FUNCTION, GS_NO_EXTERNAL_ID)
/* A grain with a fixed grain id: one descriptor stands for one grain id. The id must be a
 * constant: a static descriptor is initialised once, so in C++ (where a static may be
 * initialised at run time) an id that changes, `GS_DEFINE_GRAIN(g, "task", t->id)` in a loop,
 * would keep the first instance's id for every later one. C refuses a non-constant static
 * initialiser; in C++ GS_CONSTANT_GRAIN_ID_ makes it a compile error too. Ids known only at run
 * time go through a grain site and gs_grain_begin_id. */
#define GS_DEFINE_GRAIN(var, name, grain_id) \
  static gs_region var GS_UNUSED = GS_REGION_INIT(name, GS_ROLE_GRAIN, GS_CONSTANT_GRAIN_ID_(grain_id))
/* A grain call site whose grain id each instance gives (gs_grain_begin_id). */
#define GS_DEFINE_GRAIN_SITE(var, name) \
  static gs_region var GS_UNUSED = GS_REGION_INIT(name, GS_ROLE_GRAIN, GS_NO_EXTERNAL_ID)
#define GS_DEFINE_MESSAGE(var, text) static gs_name var GS_UNUSED = {(text), 0u}

#ifndef GRAINSCOPE_DISABLE

/* Regions. Ends must match begins on the same thread (properly nested). */
void gs_region_begin(gs_region* region);
void gs_region_end(gs_region* region);

/* Grains whose id is known only at run time (a task's number, a loop index): `site` is a
 * descriptor of GS_DEFINE_GRAIN_SITE (its name is every instance's name), `grain_id` this
 * instance's id; every distinct id is a grain of its own in the reports. The end takes the same
 * site and id (the reader counts an end whose id is not its begin's as grain_end_mismatch). Costs
 * what gs_region_begin/end cost when the id is in 0 .. 2^32-1 and the site is among the first
 * 65535 regions registered (one 16-byte record); otherwise one slot more. */
void gs_grain_begin_id(gs_region* site, int64_t grain_id);
void gs_grain_end_id(gs_region* site, int64_t grain_id);

/* Messages, identified by name; a reader pairs the k-th send of a name with its k-th receive.
 * `bytes` and `peer` (the other side's thread or rank, or GS_NO_PEER) are for the reports only.
 * Put the begin before the program's own send/receive call and the end after it. */
void gs_send_begin(uint32_t message, uint64_t bytes, int32_t peer);
void gs_send_end(uint32_t message);
void gs_recv_begin(uint32_t message);
void gs_recv_end(uint32_t message, uint64_t bytes, int32_t peer);

/* A point in time with a label. */
void gs_marker(uint32_t label);

/* Synchronisation between threads (docs/recording.md, "Threads"). Each call is one 32-byte event
 * naming the object: a lock, barrier or condition variable by any value unique while it lives (its
 * address), a thread or task by an id. Call the release-type functions (gs_lock_release,
 * gs_cond_signal, gs_cond_broadcast, gs_thread_create, gs_thread_end, gs_task_create) before the
 * operation and the acquire-type ones (gs_lock_acquired, gs_barrier_leave, gs_cond_wait_end,
 * gs_thread_begin, gs_thread_join_end, gs_task_begin) after it, so that the recorded order is the
 * hand-over's. The analyses derive from them who waited for whom: a lock's release -> its next
 * acquisition by another thread, a barrier's last arrival -> every departure, a signal -> the
 * wait it ended, a thread's creation -> its begin and its end -> the join. */
void gs_lock_request(const void* lock);  /* about to acquire: it may block from here */
void gs_lock_acquired(const void* lock); /* holds it */
void gs_lock_release(const void* lock);
/* `participants`: how many threads the barrier waits for (0: unknown). */
void gs_barrier_enter(const void* barrier, uint32_t participants);
void gs_barrier_leave(const void* barrier);
void gs_cond_wait_begin(const void* cond);
void gs_cond_wait_end(const void* cond);
void gs_cond_signal(const void* cond);
void gs_cond_broadcast(const void* cond);
/* In the parent, before starting a thread: records the creation and returns the id to hand to the
 * new thread, which calls gs_thread_begin(id) first and gs_thread_end(id) last; the parent waits
 * for it between gs_thread_join_begin(id) and gs_thread_join_end(id). */
uint64_t gs_thread_create(void);
/* The same with an id the program chose (unique in the trace; runtimes that number their teams). */
void gs_thread_create_id(uint64_t thread);
void gs_thread_begin(uint64_t thread);
void gs_thread_end(uint64_t thread);
void gs_thread_join_begin(uint64_t thread);
void gs_thread_join_end(uint64_t thread);
/* Tasks (a work queue's items, OpenMP tasks): created by one thread, run by any. */
void gs_task_create(uint64_t task);
void gs_task_begin(uint64_t task);
void gs_task_end(uint64_t task);

/* The id of a name known only at run time (takes no lock once the name has been seen, but hashes
 * the string: prefer gs_message_id with a static gs_name on hot paths). 0 when not recording. */
uint32_t gs_intern(const char* text);
/* Registers a static gs_name the first time; afterwards a single load. */
uint32_t gs_name_register(gs_name* name);
static inline uint32_t gs_message_id(gs_name* name) {
  uint32_t id = __atomic_load_n(&name->id, __ATOMIC_ACQUIRE);
  return id != 0 ? id : gs_name_register(name);
}

/* Names the calling thread in the trace ("worker 3"). */
void gs_thread_name(const char* name);
/* Gives the calling thread the processor id the reports show (the seed's processor_id). Without
 * it, threads are numbered in the order they start recording, which may change from run to run. */
void gs_thread_processor(int32_t processor_id);

/* Explicit control, for programs that do not want the environment to decide. gs_trace_open
 * starts recording into `path` (NULL: the environment's choice) and returns 0, or -1 when the
 * file cannot be created. gs_trace_close writes everything recorded so far and ends the trace;
 * it runs by itself at exit. Recording cannot be restarted in the same process except by
 * gs_trace_open after gs_trace_close, with every other recording thread quiet. */
int gs_trace_open(const char* path);
void gs_trace_close(void);
/* 1 while events are being recorded. */
int gs_trace_enabled(void);

#else /* GRAINSCOPE_DISABLE: everything compiles to nothing. */

static inline void gs_region_begin(gs_region* region) { (void)region; }
static inline void gs_region_end(gs_region* region) { (void)region; }
static inline void gs_grain_begin_id(gs_region* site, int64_t id) { (void)site; (void)id; }
static inline void gs_grain_end_id(gs_region* site, int64_t id) { (void)site; (void)id; }
static inline void gs_send_begin(uint32_t m, uint64_t b, int32_t p) { (void)m; (void)b; (void)p; }
static inline void gs_send_end(uint32_t m) { (void)m; }
static inline void gs_recv_begin(uint32_t m) { (void)m; }
static inline void gs_recv_end(uint32_t m, uint64_t b, int32_t p) { (void)m; (void)b; (void)p; }
static inline void gs_marker(uint32_t label) { (void)label; }
static inline void gs_lock_request(const void* lock) { (void)lock; }
static inline void gs_lock_acquired(const void* lock) { (void)lock; }
static inline void gs_lock_release(const void* lock) { (void)lock; }
static inline void gs_barrier_enter(const void* barrier, uint32_t n) { (void)barrier; (void)n; }
static inline void gs_barrier_leave(const void* barrier) { (void)barrier; }
static inline void gs_cond_wait_begin(const void* cond) { (void)cond; }
static inline void gs_cond_wait_end(const void* cond) { (void)cond; }
static inline void gs_cond_signal(const void* cond) { (void)cond; }
static inline void gs_cond_broadcast(const void* cond) { (void)cond; }
static inline uint64_t gs_thread_create(void) { return 0; }
static inline void gs_thread_create_id(uint64_t thread) { (void)thread; }
static inline void gs_thread_begin(uint64_t thread) { (void)thread; }
static inline void gs_thread_end(uint64_t thread) { (void)thread; }
static inline void gs_thread_join_begin(uint64_t thread) { (void)thread; }
static inline void gs_thread_join_end(uint64_t thread) { (void)thread; }
static inline void gs_task_create(uint64_t task) { (void)task; }
static inline void gs_task_begin(uint64_t task) { (void)task; }
static inline void gs_task_end(uint64_t task) { (void)task; }
static inline uint32_t gs_intern(const char* text) { (void)text; return 0; }
static inline uint32_t gs_name_register(gs_name* name) { (void)name; return 0; }
static inline uint32_t gs_message_id(gs_name* name) { (void)name; return 0; }
static inline void gs_thread_name(const char* name) { (void)name; }
static inline void gs_thread_processor(int32_t processor_id) { (void)processor_id; }
static inline int gs_trace_open(const char* path) { (void)path; return 0; }
static inline void gs_trace_close(void) {}
static inline int gs_trace_enabled(void) { return 0; }

#endif /* GRAINSCOPE_DISABLE */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* GRAINSCOPE_TRACE_H_ */
