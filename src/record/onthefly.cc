#include "record/onthefly.h"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <new>

#include "record/mailbox.h"
#include "record/runtime.h"
#include "record/stream.h"

namespace grainscope::record {
namespace {

// ---- totals over locations (folded at thread exit and at close: never on an event path) ------
pthread_mutex_t g_totals_mutex = PTHREAD_MUTEX_INITIALIZER;
double g_overhead_ticks = 0;  // the per-event overhead the post-mortem compensation also uses
double g_overhead_ns = 0;
double g_ticks_per_ns = 1;  // the start-up TSC rate estimate (1 for CLOCK_MONOTONIC)
int64_t g_max_cp = 0;
uint64_t g_min_first = UINT64_MAX;
uint64_t g_max_last = 0;
double g_max_compensated_end = 0;  // max over locations of (last event - delay), absolute ticks
uint64_t g_unmatched = 0;
OnTheFlyTotals g_last_totals;
std::atomic<TotalsCombiner> g_combiner{nullptr};

// Records written by the calling location so far (its own position in the stream).
uint64_t SlotsSoFar(const ThreadStream& s) {
  const gst::Record* data = s.blocks[s.current].data;
  const gst::Record* cur = s.cur.load(std::memory_order_relaxed);
  return s.analysis.slots_before + (cur > data ? static_cast<uint64_t>(cur - data) : 0);
}

// Segments between consecutive events of the model the post-mortem compensation takes the
// overhead off: one per event after the first, except those of length zero by construction (the
// reader turns a send-begin into enter + send and a receive-end into receive + leave, at equal
// times; the replay clamps those segments at 0).
double DelayTicks(const LocationAnalysis& a, uint64_t slots) {
  const uint64_t events = slots - a.non_events;
  const uint64_t segments = events > 1 + a.zero_segments ? events - 1 - a.zero_segments : 0;
  return g_overhead_ticks * static_cast<double>(segments) - a.credit_ticks;
}

void ResolveFirst(LocationAnalysis& a) {
  if (a.have_first || a.first_record == nullptr) return;
  a.first_time = a.first_record->time;
  a.have_first = true;
}

ThreadStream* RecordingStream() {
  ThreadStream* s = t_stream;
  return s == &g_null_stream ? nullptr : s;
}

}  // namespace

void AnalysisStartLocation(LocationAnalysis& a, const gst::Record* first) {
  a = LocationAnalysis();
  a.first_record = first;
}

void AnalysisBlockPublished(LocationAnalysis& a, const gst::Record* data, const gst::Record* cur) {
  // The owner is about to move on and may later overwrite this block: read the first time now.
  if (a.first_record != cur) ResolveFirst(a);  // else its first event goes to the next block
  if (cur > data) a.slots_before += static_cast<uint64_t>(cur - data);
  a.published_wide_slots = cur > data && cur == a.wide_end ? a.wide_slots : 1;
  a.wide_end = nullptr;
}

void AnalysisFinishLocation(LocationAnalysis& a, const gst::Record* block_data, const gst::Record* cur) {
  ResolveFirst(a);
  if (!a.have_first) return;
  // The last event: the last record (a record with continuation slots: its first slot).
  const gst::Record* last = nullptr;
  if (cur != nullptr && cur > block_data) last = AnalysisLastRecord(a, block_data, cur);
  const uint64_t last_time = last != nullptr ? last->time : a.first_time;
  const uint64_t slots = a.slots_before + (cur > block_data ? static_cast<uint64_t>(cur - block_data) : 0);
  const int64_t cp = static_cast<int64_t>(last_time - a.first_time) - a.lag_ticks;
  const double x = DelayTicks(a, slots);
  pthread_mutex_lock(&g_totals_mutex);
  g_max_cp = std::max(g_max_cp, cp);
  g_min_first = std::min(g_min_first, a.first_time);
  g_max_last = std::max(g_max_last, last_time);
  g_max_compensated_end = std::max(g_max_compensated_end, static_cast<double>(last_time) - x);
  g_unmatched += a.unmatched;
  pthread_mutex_unlock(&g_totals_mutex);
  a.have_first = false;  // folded once
  a.first_record = nullptr;
}

// Caller holds g_totals_mutex.
static void SetOverheadLocked(double overhead_ns) {
  // The post-mortem compensation reads the overhead from the metadata, written with two
  // decimals (analysis/compensate/compensate.cc): use exactly that value.
  char text[64];
  std::snprintf(text, sizeof text, "%.2f", overhead_ns);
  g_overhead_ns = overhead_ns;
  g_overhead_ticks = std::strtod(text, nullptr) * g_ticks_per_ns;
}

void AnalysisOpen(double overhead_ns, double nominal_ticks_per_ns) {
  pthread_mutex_lock(&g_totals_mutex);
  g_ticks_per_ns = nominal_ticks_per_ns;
  SetOverheadLocked(overhead_ns);
  g_max_cp = 0;
  g_min_first = UINT64_MAX;
  g_max_last = 0;
  g_max_compensated_end = 0;
  g_unmatched = 0;
  pthread_mutex_unlock(&g_totals_mutex);
  MailboxesReset();
}

double AnalysisOverheadNs() {
  pthread_mutex_lock(&g_totals_mutex);
  const double ns = g_overhead_ns;
  pthread_mutex_unlock(&g_totals_mutex);
  return ns;
}

void AnalysisSetOverheadNs(double overhead_ns) {
  pthread_mutex_lock(&g_totals_mutex);
  SetOverheadLocked(overhead_ns);
  pthread_mutex_unlock(&g_totals_mutex);
}

void SetTotalsCombiner(TotalsCombiner combiner) { g_combiner.store(combiner, std::memory_order_release); }

namespace {
std::atomic<bool> g_published{true};
}  // namespace

void SetOnTheFlyPublished(bool published) { g_published.store(published, std::memory_order_relaxed); }
bool OnTheFlyPublished() { return g_published.load(std::memory_order_relaxed); }

void AnalysisClose(double ns_per_tick, bool report) {
  pthread_mutex_lock(&g_totals_mutex);
  OnTheFlyRaw raw{g_max_cp, g_min_first, g_max_last, g_max_compensated_end, g_unmatched};
  pthread_mutex_unlock(&g_totals_mutex);
  // Outside the lock: the combiner talks to other processes.
  if (TotalsCombiner combine = g_combiner.load(std::memory_order_acquire)) combine(&raw);
  OnTheFlyTotals t;
  if (raw.min_first != UINT64_MAX) {
    t.critical_path_ns = std::llround(static_cast<double>(raw.max_cp_ticks) * ns_per_tick);
    t.measured_ns = std::llround(static_cast<double>(raw.max_last - raw.min_first) * ns_per_tick);
    t.compensated_ns = std::llround((raw.max_compensated_end - static_cast<double>(raw.min_first)) * ns_per_tick);
  }
  t.unmatched_receives = raw.unmatched;
  pthread_mutex_lock(&g_totals_mutex);
  g_last_totals = t;
  pthread_mutex_unlock(&g_totals_mutex);
  if (report) {
    std::fprintf(stderr,
                 "grainscope: on the fly: critical path %.6f s, measured %.6f s, compensated %.6f s "
                 "(%llu receive(s) without a piggybacked send)\n",
                 static_cast<double>(t.critical_path_ns) * 1e-9, static_cast<double>(t.measured_ns) * 1e-9,
                 static_cast<double>(t.compensated_ns) * 1e-9, static_cast<unsigned long long>(t.unmatched_receives));
  }
}

OnTheFlyTotals LastOnTheFlyTotals() {
  pthread_mutex_lock(&g_totals_mutex);
  OnTheFlyTotals t = g_last_totals;
  pthread_mutex_unlock(&g_totals_mutex);
  return t;
}

Piggyback PiggybackForSend(uint64_t send_begin_time) {
  Piggyback p;
  p.send_time = send_begin_time;
  ThreadStream* s = RecordingStream();
  if (s == nullptr) return p;
  LocationAnalysis& a = s->analysis;
  ResolveFirst(a);
  p.cp_ticks = static_cast<int64_t>(send_begin_time - a.first_time) - a.lag_ticks;
  p.delay_ticks = DelayTicks(a, SlotsSoFar(*s));
  return p;
}

void NoteReceiveBegin(uint64_t recv_begin_time) {
  if (ThreadStream* s = RecordingStream()) s->analysis.recv_begin_time = recv_begin_time;
}

void ApplyReceivedPiggyback(const Piggyback* m, uint64_t recv_end_time) {
  ThreadStream* s = RecordingStream();
  if (s == nullptr) return;
  LocationAnalysis& a = s->analysis;
  ResolveFirst(a);
  if (m == nullptr) {
    ++a.unmatched;
    return;
  }
  const uint64_t begin = a.recv_begin_time;
  // Wait as measured_waits.h defines it: the part of the receive before the partner was ready.
  int64_t wait = 0;
  if (m->send_time > begin) wait = static_cast<int64_t>(std::min(m->send_time, recv_end_time) - begin);
  a.lag_ticks += wait;
  const int64_t own = static_cast<int64_t>(recv_end_time - a.first_time) - a.lag_ticks;
  if (m->cp_ticks > own) a.lag_ticks -= m->cp_ticks - own;  // the sender's chain is longer
  // x' = min(x_sender + early, x + w): the measured wait hid overhead only as far as the
  // sender's delay allows. `early` is how long the message had been there when the receive
  // began: the seed's rule (SPEC.md §5, min(x1, x2 + w)) for a receive that waited (early = 0);
  // for one that did not, the unmeasured message would still have been early by that much, so
  // the receiver inherits no more than x1 + early — what the post-mortem replay computes.
  const int64_t early = m->send_time < begin ? static_cast<int64_t>(begin - m->send_time) : 0;
  const double x = DelayTicks(a, SlotsSoFar(*s));
  const double x_new = std::min(m->delay_ticks + static_cast<double>(early), x + static_cast<double>(wait));
  a.credit_ticks += x - x_new;
}

}  // namespace grainscope::record
