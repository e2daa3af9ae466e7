#include "model/diagnostic_kinds.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "model/diagnostics.h"

namespace grainscope {
namespace {

using S = DiagnosticSeverity;

// In the order of Diag, which is sorted by name (FindDiagnosticKind searches it; a test checks both).
constexpr std::array kKinds = {
    DiagnosticKind{Diag::kAnnotationFlows, "annotation_flows", S::kIgnored,
                   "flow event(s) an analysis drew over the trace (HTA's critical path), not taken as dependencies"},
    DiagnosticKind{Diag::kBarrierEndsAdded, "barrier_ends_added", S::kRepaired,
                   "barrier arrival(s) never left on a thread whose events end there, in an instance the "
                   "others left (libomp never reports a worker's last implicit-barrier end): left at the "
                   "barrier's release"},
    DiagnosticKind{Diag::kClocksAligned, "clocks_aligned", S::kRepaired,
                   "rank(s) whose clock was moved onto the lowest rank's so that the NCCL all-to-all operations "
                   "they share end together (the median difference of their ends)"},
    DiagnosticKind{Diag::kCollectivesMatchedByTime, "collectives_matched_by_time", S::kSuspect,
                   "NCCL / RCCL kernel(s) naming no sequence number, matched across ranks by time: kernels of one "
                   "process group (or stream) on different ranks that overlap and end within 2 % (at least "
                   "100 us) of each other are one operation; a kernel without such a partner is its rank's alone"},
    DiagnosticKind{Diag::kDamagedBlocks, "damaged_blocks", S::kDataLoss,
                   "event block(s) failed their checksum or did not decode; their events are lost"},
    DiagnosticKind{Diag::kDamagedChunks, "damaged_chunks", S::kDataLoss, "chunk(s) of the file are damaged and were skipped"},
    DiagnosticKind{Diag::kDependenciesBackInTime, "dependencies_back_in_time", S::kSuspect,
                   "dependency edge(s) (lock hand-over, fork/join, GPU launch or sync) whose later event is "
                   "stamped before the earlier one, as recorded (the locations' clocks disagree)"},
    DiagnosticKind{Diag::kDroppedEvents, "dropped_events", S::kDataLoss, "event(s) the recording runtime could not record"},
    DiagnosticKind{Diag::kEmptyLocations, "empty_locations", S::kSuspect,
                   "location(s) defined with no event at all (an empty event file, a rank that recorded "
                   "nothing): idle for the whole run in every analysis"},
    DiagnosticKind{Diag::kFileTruncated, "file_truncated", S::kDataLoss, "file(s) end in the middle of a record"},
    DiagnosticKind{Diag::kFlowsBackInTime, "flows_back_in_time", S::kSkipped,
                   "flow arrow(s) (Chrome \"s\"/\"f\") whose end is stamped before their start, not kept as dependencies"},
    DiagnosticKind{Diag::kGpuSyncGuessed, "gpu_sync_guessed", S::kSuspect,
                   "GPU synchronisation(s) whose stream or event record the trace does not name: taken as "
                   "waiting for the calling thread's last launched stream (or device), or for the work the "
                   "stream had enqueued by the call; a stream wait naming no waiting stream gets no edge"},
    DiagnosticKind{Diag::kGpuSyncRecords, "gpu_sync_records", S::kIgnored,
                   "record(s) saying what a GPU synchronisation waited for (Kineto's cuda_sync), taken as "
                   "its edges rather than as slices on a stream"},
    DiagnosticKind{Diag::kGpuWorkWithoutLaunch, "gpu_work_without_launch", S::kSuspect,
                   "GPU kernel(s) or copies whose launching call is not in the trace (their correlation id "
                   "names no runtime call): they start when their stream allows"},
    DiagnosticKind{Diag::kGrainEndMismatch, "grain_end_mismatch", S::kSuspect,
                   "grain end(s) naming another grain id than their begin (kept as the begin's grain)"},
    DiagnosticKind{Diag::kIgnoredAttributes, "ignored_attributes", S::kIgnored, "record attribute(s) not kept (not analysed)"},
    DiagnosticKind{Diag::kImproperNestingRepaired, "improper_nesting_repaired", S::kRepaired,
                   "region(s) still open when a region entered before them was left, closed at that Leave"},
    DiagnosticKind{Diag::kIncompleteReceives, "incomplete_receives", S::kDataLoss, "non-blocking receive(s) posted but never completed"},
    DiagnosticKind{Diag::kInvalidRecords, "invalid_records", S::kSkipped,
                   "record(s) that could not be read (a field missing, of the wrong type or out of range), skipped"},
    DiagnosticKind{Diag::kLateBarrierEndsMoved, "late_barrier_ends_moved", S::kRepaired,
                   "barrier end(s) recorded after the team's next fork (libomp's OMPT reports a worker's "
                   "implicit-barrier end when it starts its next parallel region), moved back to the barrier's "
                   "release; the worker is idle from there to its next task"},
    DiagnosticKind{Diag::kLaunchFlowsReplaced, "launch_flows_replaced", S::kIgnored,
                   "launch flow event(s) (Kineto's ac2g) not used: launches are joined on their correlation ids"},
    DiagnosticKind{Diag::kMissingBlocks, "missing_blocks", S::kDataLoss,
                   "event block(s) missing from a thread's stream; its events after the gap are not analysed"},
    DiagnosticKind{Diag::kMissingLocationFiles, "missing_location_files", S::kDataLoss,
                   "location(s) whose event file is missing or unreadable; analysed as empty, messages to "
                   "and from them unmatched"},
    DiagnosticKind{Diag::kMissingRankFiles, "missing_rank_files", S::kDataLoss,
                   "rank(s) of the job (below its world size) with no file in the trace directory, not analysed"},
    DiagnosticKind{Diag::kOtherRunFiles, "other_run_files", S::kSkipped,
                   "rank file(s) of another run in the trace directory, not merged (a trace is one run)"},
    DiagnosticKind{Diag::kProfilerSpans, "profiler_spans", S::kIgnored,
                   "slice(s) and marker(s) on the profiler's own tracks (Kineto's \"Spans\", \"Traces\" "
                   "and \"\": the profiling window and its marks), not the program's work"},
    DiagnosticKind{Diag::kRanksWithoutMpiInit, "ranks_without_mpi_init", S::kDataLoss,
                   "MPI rank(s) recorded without their MPI_Init region (an older libgrainscope-mpi): each "
                   "timeline starts at the rank's first MPI call, its computation before it is not counted"},
    DiagnosticKind{Diag::kReceiveBeforeSend, "receive_before_send", S::kSuspect,
                   "message(s) received before they were sent, as recorded (the locations' clocks disagree)"},
    // A message with one end recorded stays a message row with the other side missing (analysed as a
    // send or a receive alone); every reader counts it under these two names.
    DiagnosticKind{Diag::kReceivesWithoutSend, "receives_without_send", S::kDataLoss, "message(s) received but never sent"},
    DiagnosticKind{Diag::kRecordsNotAnalysed, "records_not_analysed", S::kDataLoss,
                   "record(s) after a gap in a thread's stream, not analysed (they cannot be trusted to nest)"},
    DiagnosticKind{Diag::kSendsWithoutReceive, "sends_without_receive", S::kDataLoss, "message(s) sent but never received"},
    DiagnosticKind{Diag::kSharedProcessorIds, "shared_processor_ids", S::kRepaired,
                   "thread(s) recorded a processor id another thread also used; reported as threads"},
    DiagnosticKind{Diag::kSkippedChunks, "skipped_chunks", S::kSkipped, "chunk(s) of kinds this version does not know, skipped"},
    DiagnosticKind{Diag::kSkippedLines, "skipped_lines", S::kSkipped, "line(s) that are not trace records (the program's own output), skipped"},
    DiagnosticKind{Diag::kSkippedLocations, "skipped_locations", S::kSkipped, "location(s) holding only metrics, not analysed"},
    DiagnosticKind{Diag::kSkippedRecords, "skipped_records", S::kSkipped, "record(s) of kinds grainscope does not model, skipped"},
    DiagnosticKind{Diag::kStrayEvents, "stray_events", S::kRepaired,
                   "event(s) closing or naming nothing that was opened (an end without a begin), dropped"},
    DiagnosticKind{Diag::kTimeWentBackwards, "time_went_backwards", S::kRepaired,
                   "event(s) stamped earlier than the event before them on their location, moved to that time"},
    DiagnosticKind{Diag::kTraceNotFinished, "trace_not_finished", S::kDataLoss,
                   "trace(s) not closed by the recording process; each thread's last unwritten events are lost"},
    DiagnosticKind{Diag::kTruncatedSlices, "truncated_slices", S::kRepaired, "slice(s) outliving their enclosing slice, cut at its end"},
    DiagnosticKind{Diag::kUnclosedRegions, "unclosed_regions", S::kRepaired,
                   "region(s) still open at their location's last event, closed there"},
    DiagnosticKind{Diag::kUnclosedSlices, "unclosed_slices", S::kRepaired, "slice(s) begun but never ended, closed at their track's last event"},
    DiagnosticKind{Diag::kUnfinishedCollectives, "unfinished_collectives", S::kDataLoss,
                   "collective(s) begun on a location whose events end before the collective does"},
    DiagnosticKind{Diag::kUnknownCommunicators, "unknown_communicators", S::kDataLoss,
                   "collective(s) on a communicator without a definition, not matched"},
    DiagnosticKind{Diag::kUnknownRanks, "unknown_ranks", S::kDataLoss, "communicator member(s) naming a rank that left no trace file"},
    DiagnosticKind{Diag::kUnknownRequests, "unknown_requests", S::kRepaired,
                   "request completion(s) of a request that was never started, ignored"},
    DiagnosticKind{Diag::kUnmatchedLeavesDropped, "unmatched_leaves_dropped", S::kRepaired,
                   "Leave(s) of a region that is not open on their location, dropped"},
    DiagnosticKind{Diag::kUnpairedFlows, "unpaired_flows", S::kDataLoss, "flow event(s) without a partner or a peer, dropped"},
    DiagnosticKind{Diag::kUnreadableRankFiles, "unreadable_rank_files", S::kDataLoss, "rank file(s) that could not be read; those ranks are missing"},
};

}  // namespace

std::string_view DiagnosticSeverityName(DiagnosticSeverity s) {
  switch (s) {
    case S::kIgnored: return "ignored";
    case S::kSkipped: return "skipped";
    case S::kSuspect: return "suspect";
    case S::kRepaired: return "repaired";
    case S::kDataLoss: return "data_loss";
  }
  return "skipped";
}

std::span<const DiagnosticKind> DiagnosticKinds() { return kKinds; }

const DiagnosticKind& KindOf(Diag kind) { return kKinds[static_cast<size_t>(kind)]; }

const DiagnosticKind* FindDiagnosticKind(std::string_view name) {
  auto it = std::lower_bound(kKinds.begin(), kKinds.end(), name,
                             [](const DiagnosticKind& k, std::string_view n) { return k.name < n; });
  return it != kKinds.end() && it->name == name ? &*it : nullptr;
}

std::vector<std::string> DiagnosticNotes(const Diagnostics& diagnostics) {
  std::vector<std::string> notes;
  for (const Diagnostic& d : diagnostics.entries()) {
    const DiagnosticKind& kind = KindOf(d.kind);
    if (kind.severity == DiagnosticSeverity::kIgnored) continue;
    std::string note = fmt::format("{} {} [{}]", d.count, kind.description, kind.name);
    if (!d.example.empty()) note += fmt::format("; first: {}", d.example);
    std::replace(note.begin(), note.end(), '\n', ' ');  // a note is one line
    notes.push_back(std::move(note));
  }
  return notes;
}

}  // namespace grainscope
