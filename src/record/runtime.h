// The recording runtime's global state and life cycle: opened lazily on the first event (from the
// environment, see include/grainscope/trace.h) or by gs_trace_open, closed at exit, by
// gs_trace_close, or by the fatal-signal handler.
//
// Life cycle of g_state:   uninitialised -> recording | disabled
//                          recording -> closed (exit, gs_trace_close) | crashing (fatal signal)
//                          closed -> recording (gs_trace_open)
// Events are only recorded in `recording`; in every other state the API returns at once.
#pragma once

#include <atomic>
#include <cstdint>

#include "format/gst/gst_format.h"
#include "record/sink.h"
#include "record/visibility.h"

namespace grainscope::record {

enum State : uint32_t { kUninitialized = 0, kRecording, kDisabled, kClosed, kCrashing };

// How the seed compatibility routines print their text lines (GRAINSCOPE_SEED_TEXT).
enum class SeedText : uint8_t { kOff, kMilliseconds, kPrecise };

struct Options {
  const char* path = nullptr;     // output file or directory; null: default name in the cwd
  bool enable = true;             // GRAINSCOPE_ENABLE
  bool compress = true;           // GRAINSCOPE_COMPRESS=0: raw blocks; else delta-coded
  bool zstd = true;               // GRAINSCOPE_COMPRESS=delta: no zstd on top of the delta coding
  bool signals = true;            // GRAINSCOPE_SIGNALS: save the trace on fatal signals
  bool background_flush = true;   // GRAINSCOPE_FLUSH=owner: owners write their own blocks
  uint32_t buffer_kib = 512;      // GRAINSCOPE_BUFFER_KB: per-thread buffer, in blocks of 64 KiB
  const char* clock = nullptr;    // GRAINSCOPE_CLOCK: "tsc" or "monotonic"; null: automatic
  SeedText seed_text = SeedText::kOff;
  bool report = false;            // GRAINSCOPE_REPORT=1: print the on-the-fly results at the end
};

// Reads the GRAINSCOPE_* variables.
Options OptionsFromEnvironment();

GS_HIDDEN extern std::atomic<uint32_t> g_state;
GS_HIDDEN extern std::atomic<uint32_t> g_generation;  // bumped by every Open
GS_HIDDEN extern Sink g_sink;
GS_HIDDEN extern Options g_options;
// Events the runtime could not record (no buffer for a thread, failed writes); written at close.
GS_HIDDEN extern std::atomic<uint64_t> g_dropped_events;
GS_HIDDEN extern double g_nominal_ticks_per_ns;

// Starts recording with `options`. False (and a message on stderr) when the trace cannot be
// created; the state is then `disabled`. Exported for the tests and the benchmark.
GS_EXPORT bool Open(const Options& options);
// Flushes everything and ends the trace (kEndExit). Exported for tests and the benchmark.
GS_EXPORT void Close();
// The path of the current (or last) trace.
GS_EXPORT const char* TracePath();
// The start-up measurement of one event's cost, in ns (0 before the first Open).
GS_EXPORT double OverheadPerEventNs();
// Whether the clock chosen by the last Open is the TSC (else CLOCK_MONOTONIC).
GS_EXPORT bool ClockIsTsc();
// Its name as the trace's metadata gives it: "tsc", "tsc-ordered" or "monotonic".
GS_EXPORT const char* ClockName();

// Opens from the environment if nothing has been decided yet; cheap once it has.
void EnsureStarted();

// Origin (the seed's time zero) in CLOCK_MONOTONIC ns for the seed text lines: the time of
// initialize_clock(), else of the first line printed. Setting 0 lets the next line set it
// (exported for the tests: a process's origin outlives its traces).
int64_t SeedTextOriginNs();
GS_EXPORT void SetSeedTextOrigin(int64_t monotonic_ns);

// Writes a ClockSample chunk now (flusher, close, crash handler) and returns it.
gst::ClockSample WriteClockSample(bool in_crash_handler);

}  // namespace grainscope::record
