// The trace metadata keys that one side writes and another reads: the recording runtime
// (src/record) writes them into a .gst file's metadata chunk, readers keep them in
// Trace::metadata(), and analyses look them up with Trace::Metadata(). Named once here, so a key
// cannot be spelled differently on the two sides. Plain char arrays: the runtime passes them as C
// strings, the rest as string_views.
#pragma once

namespace grainscope::metadata {

// Which clock stamped the events: "tsc", "tsc-ordered" or "monotonic" (record/clock.h), and why.
inline constexpr char kClock[] = "clock";
inline constexpr char kClockReason[] = "clock_reason";
inline constexpr char kTscTicksPerNs[] = "tsc_ticks_per_ns";
// The recorder's measured cost of one event, which `compensate` subtracts.
inline constexpr char kOverheadPerEventNs[] = "overhead_per_event_ns";
inline constexpr char kOverheadCalibration[] = "overhead_calibration";

// What was recorded, where and when (wall clock, for people; analyses never use it).
inline constexpr char kProgram[] = "program";
inline constexpr char kCommandLine[] = "command_line";
inline constexpr char kHost[] = "host";
inline constexpr char kPid[] = "pid";
inline constexpr char kStartUnixNs[] = "start_unix_ns";
inline constexpr char kCompression[] = "compression";
inline constexpr char kGrainscopeVersion[] = "grainscope_version";

// The on-the-fly analysis' results (record/onthefly.h), written when the recording ends.
inline constexpr char kOnTheFlyCriticalPathNs[] = "onthefly_critical_path_ns";
inline constexpr char kOnTheFlyMeasuredNs[] = "onthefly_measured_ns";
inline constexpr char kOnTheFlyCompensatedNs[] = "onthefly_compensated_ns";
inline constexpr char kOnTheFlyUnmatchedReceives[] = "onthefly_unmatched_receives";

// What the readers add about the file itself. The .gst writer does not copy these into the
// files it writes (they describe the file read, not the run): gst_writer.cc's ReaderMadeKey.
inline constexpr char kGstVersion[] = "gst_version";
inline constexpr char kClockOriginMonotonicNs[] = "clock_origin_monotonic_ns";  // first clock sample
inline constexpr char kDroppedEvents[] = "dropped_events";  // a count, or "unknown"
inline constexpr char kEnd[] = "end";                        // "exit", "signal N" or "missing"
inline constexpr char kGstOmittedEvents[] = "gst_omitted_events";
inline constexpr char kMpiRanks[] = "mpi_ranks";  // a .gst directory: its rank files
// A .gst directory: "rank N clock_offset_init_ns" and "rank N clock_offset_finalize_ns".
inline constexpr char kRankPrefix[] = "rank ";
inline constexpr char kClockOffsetInitNs[] = "clock_offset_init_ns";
inline constexpr char kClockOffsetFinalizeNs[] = "clock_offset_finalize_ns";
// MPI traces: the eager limit the rendezvous edges were derived with (model/rendezvous.h), in
// bytes, and where it comes from ("Open MPI btl_vader_eager_limit", "assumed", ...).
inline constexpr char kEagerLimitBytes[] = "mpi.eager_limit_bytes";
inline constexpr char kEagerLimitSource[] = "mpi.eager_limit_source";
inline constexpr char kTimeUnit[] = "time_unit";  // the seed text format's unit, "ms"
inline constexpr char kCreator[] = "creator";     // OTF2: the tool that wrote the archive

}  // namespace grainscope::metadata
