// On-the-fly analyses in the recording runtime: Bellenot's critical path (SPEC.md §3 "On the
// fly") and Malony-Shende-Biersdorff overhead compensation (SPEC.md §5), computed while the
// program runs from values piggybacked on its messages, reported at the end without reading the
// trace.
//
// Per location (recording thread) the runtime keeps, in raw clock ticks:
//   cp(t) = (t - first event) - lag      the longest chain of work ending now. Compute segments
//                                        add their duration for free (cp grows with the clock), so
//                                        ordinary events (region begin/end) do nothing extra:
//                                        the hot path is untouched. `lag` grows by the time spent
//                                        waiting for a partner that was not ready and shrinks when
//                                        a message brings a longer chain.
//   x = overhead x events - credit       the delay (how much earlier the next event would happen
//                                        unmeasured). The event count is read from the stream's
//                                        position; only receives change `credit`.
// The definitions are the post-mortem ones (analysis/replay/measured_waits.h): at a receive that
// began at tb and ended at te for a message sent at ts, the wait is clamp(ts - tb, 0, te - tb);
// cp = max(own + work, message cp); x' = min(x_sender + early, x + wait), where early =
// max(0, tb - ts) (0 whenever the receive waited: then it is the seed's min(x1, x2 + w)).
//
// Messages of the thread API are in-process: the sender stores a Piggyback in the message name's
// mailbox (a lock-free, growable array indexed by the send's sequence number under that name), the
// receiver takes the entry with its receive's sequence number — the pairing the .gst reader uses
// (k-th send with k-th receive of a name). An MPI wrapper carries the Piggyback itself and calls
// PiggybackForSend / ApplyReceivedPiggyback around its own transfers.
#pragma once

#include <cstdint>

#include "format/gst/gst_format.h"
#include "record/visibility.h"

struct gs_region;

namespace grainscope::record {

// What a message carries: the sender's state at its send-begin.
struct Piggyback {
  int64_t cp_ticks = 0;     // the sender's cp
  uint64_t send_time = 0;   // raw clock at the send-begin (for the receiver's wait)
  double delay_ticks = 0;   // the sender's delay x
};

// Per-location state, owned by the recording thread (embedded in its ThreadStream).
struct LocationAnalysis {
  const gst::Record* first_record = nullptr;  // where the location's first event was stored
  uint64_t first_time = 0;                    // its time, once read (have_first)
  bool have_first = false;
  // End of the last record with continuation slots in the block being filled, and its slots (the
  // record's own included); cleared when the block is published, so that a pointer from an earlier
  // pass of the ring of blocks never matches. published_wide_slots: the slots of the record that
  // ends the block published last (1: an ordinary record).
  const gst::Record* wide_end = nullptr;
  uint32_t wide_slots = 0;
  uint32_t published_wide_slots = 1;
  uint64_t slots_before = 0;   // records in blocks this location already published
  uint64_t non_events = 0;     // records that are not events of the model (processor changes)
  uint64_t zero_segments = 0;  // events at the same time as their predecessor (see onthefly.cc)
  int64_t lag_ticks = 0;
  double credit_ticks = 0;
  uint64_t recv_begin_time = 0;
  uint64_t unmatched = 0;      // receives with no piggybacked sender state
};

// The record at `p` has `slots` slots with its continuation slots (a message, a sync, an MPI
// collective): while it is the location's last, the last time is its first slot's.
inline void AnalysisWideRecord(LocationAnalysis& a, const gst::Record* p, uint32_t slots) {
  a.wide_end = p + slots;
  a.wide_slots = slots;
}
// The location's last record when `cur` ends its records in the block starting at `data`.
inline const gst::Record* AnalysisLastRecord(const LocationAnalysis& a, const gst::Record* data, const gst::Record* cur) {
  if (cur == a.wide_end && cur - a.wide_slots >= data) return cur - a.wide_slots;
  return cur - 1;
}

// A record at `p` that is not an event of the model (a processor change, the seed's origin): not
// counted, and not the location's first event.
inline void AnalysisSkipRecord(LocationAnalysis& a, const gst::Record* p) {
  ++a.non_events;
  if (!a.have_first && a.first_record == p) a.first_record = p + 1;
}

// Hooks the runtime calls on slow paths (never on ordinary events).
// A fresh location: its first record will be written at `first`.
void AnalysisStartLocation(LocationAnalysis& a, const gst::Record* first);
// The location is publishing the block [data, cur): remember its size, resolve the first time.
void AnalysisBlockPublished(LocationAnalysis& a, const gst::Record* data, const gst::Record* cur);
// ... and has started the block at `data`.
inline void AnalysisBlockStarted(LocationAnalysis& a, const gst::Record* old_cur, const gst::Record* data) {
  if (!a.have_first && a.first_record == old_cur) a.first_record = data;  // skipped records filled the block
}
// The location's thread is exiting (called on that thread) or the trace closes (every location).
void AnalysisFinishLocation(LocationAnalysis& a, const gst::Record* block_data, const gst::Record* cur);
// At Open / Close: reset the totals; write them as metadata and (GRAINSCOPE_REPORT=1) on stderr.
void AnalysisOpen(double overhead_ns, double nominal_ticks_per_ns);
// `ns_per_tick` converts tick differences to ns as the reader does (fit over the run's samples).
void AnalysisClose(double ns_per_tick, bool report);

// --- hooks for message layers (the thread API below, the PMPI wrapper) -------------------------
// On the calling thread's location; `time` is the raw clock of the recorded event. Both are
// no-ops when the thread is not recording.
GS_EXPORT Piggyback PiggybackForSend(uint64_t send_begin_time);
GS_EXPORT void NoteReceiveBegin(uint64_t recv_begin_time);
// `message` null: nothing was piggybacked (a receive without a matching send).
GS_EXPORT void ApplyReceivedPiggyback(const Piggyback* message, uint64_t recv_end_time);

// --- carried messages (record/carried.cc): for a layer that moves the Piggyback itself between
// processes (libgrainscope-mpi). It writes the MPI records of gst_format.h (version 2.5), each one
// event of the .gst directory reader's model, and labels the reader consumes.
struct CarriedTimes {
  uint64_t segment_begin = 0;  // time of the location's previous event (where the blocking began)
  uint64_t time = 0;           // the record's time; 0: nothing was recorded
};
// A message on communicator `comm` (the interned text of its key) to or from world rank `peer`.
// A send (kRecordMpiSend, a kSend event); returns the time for PiggybackForSend, or 0.
GS_EXPORT uint64_t CarriedMpiSend(uint32_t comm, uint64_t bytes, int32_t peer, int32_t tag);
// A completed receive (kRecordMpiRecv, a kRecv event); then NoteReceiveBegin(segment_begin) and
// ApplyReceivedPiggyback(..., time) once the sender's Piggyback has arrived.
GS_EXPORT CarriedTimes CarriedMpiReceive(uint32_t comm, uint64_t bytes, int32_t peer, int32_t tag);
// A collective's begin (kRecordMpiCollective, an event), now or (At) at an earlier raw time but
// never before the thread's previous record; both return the time written, or 0.
struct MpiCollectiveBegin {
  uint16_t op = 0;      // gst::MpiCollOpNumber
  uint32_t comm = 0;    // interned communicator key
  int32_t root = -1;    // world rank, or -1
  uint64_t sent = 0, received = 0;
  uint32_t slot = 0;    // 0: blocking; else the non-blocking collective's slot
};
GS_EXPORT uint64_t MpiCollectiveTimed(const MpiCollectiveBegin& c);
GS_EXPORT uint64_t MpiCollectiveAt(const MpiCollectiveBegin& c, uint64_t time);
// The end of the non-blocking collective in `slot` (kRecordMpiCollectiveEnd, an event).
GS_EXPORT void MpiCollectiveEnd(uint32_t slot);
// A label the reader consumes (not an event), stamped with the previous record's time.
GS_EXPORT void CarriedLabel(uint32_t label);
// A region end; returns its time.
GS_EXPORT uint64_t RegionEndTimed(struct gs_region* region);
// Records of a call that began before recording was open (the MPI_Init wrapper's entry, so that a
// rank's timeline starts at its program's begin): the raw clock value of an earlier
// CLOCK_MONOTONIC reading, then a region begin at such a time, never before the thread's previous
// record; returns the time written. Write them before the thread records anything else.
GS_EXPORT uint64_t RawClockAt(int64_t monotonic_ns);
GS_EXPORT uint64_t RegionBeginAt(struct gs_region* region, uint64_t time);

// The on-the-fly totals of one process before conversion to ns, and a hook that combines them
// with other processes' (libgrainscope-mpi: over all ranks) at close, before they are written.
struct OnTheFlyRaw {
  int64_t max_cp_ticks = 0;
  uint64_t min_first = UINT64_MAX;  // raw clock
  uint64_t max_last = 0;
  double max_compensated_end = 0;   // raw clock
  uint64_t unmatched = 0;
};
using TotalsCombiner = void (*)(OnTheFlyRaw* totals);
// The per-event overhead the delay x counts (the trace's calibration, set at open). Processes
// whose traces are read as one (MPI ranks) use one value: the one the reader keeps (rank 0's).
GS_EXPORT double AnalysisOverheadNs();
GS_EXPORT void AnalysisSetOverheadNs(double overhead_ns);
GS_EXPORT void SetTotalsCombiner(TotalsCombiner combiner);  // nullptr: none
// Whether the trace's metadata gets the on-the-fly totals (default yes). libgrainscope-mpi turns
// it off when its ranks do not carry each other's state (GRAINSCOPE_ONTHEFLY unset): each rank's
// totals alone would be a wrong answer for the run.
GS_EXPORT void SetOnTheFlyPublished(bool published);
bool OnTheFlyPublished();

// The last totals computed by AnalysisClose (for tests and benchmarks), in ns.
struct OnTheFlyTotals {
  int64_t critical_path_ns = 0;
  int64_t measured_ns = 0;      // first event to last event over all locations
  int64_t compensated_ns = 0;   // the same, compensated
  uint64_t unmatched_receives = 0;
};
GS_EXPORT OnTheFlyTotals LastOnTheFlyTotals();

}  // namespace grainscope::record
