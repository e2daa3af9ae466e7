/* The timing routines of Yadav's 1989 thesis (chapter 3), with their exact names, recording
 * through the grainscope runtime (include/grainscope/trace.h): grains become regions of role
 * grain named "grain <id>", the structure names become message names.
 *
 * With GRAINSCOPE_SEED_TEXT=1 each routine also prints the seed's text line on standard output,
 * as the originals did (" start \t1\t0\t\t290": milliseconds since initialize_clock()), so the
 * 1989 workflow still works: run the program with its output redirected, then
 * `grainscope report output.txt`. GRAINSCOPE_SEED_TEXT=precise prints the times with six
 * decimals (nanosecond resolution), which grainscope's seed text reader also accepts.
 *
 *   initialize_clock();                     first statement of the program: time zero
 *   get_grain_start_time(processor, grain); first statement of a grain
 *   get_grain_stop_time(processor, grain);  last statement of a grain
 *   get_send_begin_time(grain, "name");     before putting a structure where another grain takes it
 *   get_send_end_time(grain, "name");       after
 *   get_recv_begin_time(grain, "name");     before taking a structure
 *   get_recv_end_time(grain, "name");       after
 *
 * The k-th send of a structure name is paired with its k-th receive. The processor id names the
 * location the thread's grains are reported on.
 */
#ifndef GRAINSCOPE_SEED_COMPAT_H_
#define GRAINSCOPE_SEED_COMPAT_H_

#ifdef __cplusplus
extern "C" {
#endif

#ifndef GRAINSCOPE_DISABLE

void initialize_clock(void);
void get_grain_start_time(int processor_id, int grain_id);
void get_grain_stop_time(int processor_id, int grain_id);
void get_send_begin_time(int grain_id, const char* structure_name);
void get_send_end_time(int grain_id, const char* structure_name);
void get_recv_begin_time(int grain_id, const char* structure_name);
void get_recv_end_time(int grain_id, const char* structure_name);

#else

static inline void initialize_clock(void) {}
static inline void get_grain_start_time(int p, int g) { (void)p; (void)g; }
static inline void get_grain_stop_time(int p, int g) { (void)p; (void)g; }
static inline void get_send_begin_time(int g, const char* s) { (void)g; (void)s; }
static inline void get_send_end_time(int g, const char* s) { (void)g; (void)s; }
static inline void get_recv_begin_time(int g, const char* s) { (void)g; (void)s; }
static inline void get_recv_end_time(int g, const char* s) { (void)g; (void)s; }

#endif

#ifdef __cplusplus
}
#endif

#endif /* GRAINSCOPE_SEED_COMPAT_H_ */
