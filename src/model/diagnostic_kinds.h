// The declared list of diagnostics: every condition a reader survives, with its one name, how bad
// it is and what it means to a user (Perfetto's stats.h in spirit).
//
// A reader counts under these kinds only (Diagnostics::AddCount takes a Diag: an undeclared one does
// not compile), so one condition has one name in every format, `info` can list them, and every
// command can print one `note:` line per kind before its result (report/notes.h). A new kind is a
// line in Diag and one in the table (diagnostic_kinds.cc), both in name order.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace grainscope {

class Diagnostics;

enum class Diag : uint8_t {
  kAnnotationFlows,  // annotation_flows
  kBarrierEndsAdded,  // barrier_ends_added
  kClocksAligned,  // clocks_aligned
  kCollectivesMatchedByTime,  // collectives_matched_by_time
  kDamagedBlocks,  // damaged_blocks
  kDamagedChunks,  // damaged_chunks
  kDependenciesBackInTime,  // dependencies_back_in_time
  kDroppedEvents,  // dropped_events
  kEmptyLocations,  // empty_locations
  kFileTruncated,  // file_truncated
  kFlowsBackInTime,  // flows_back_in_time
  kGpuSyncGuessed,  // gpu_sync_guessed
  kGpuSyncRecords,  // gpu_sync_records
  kGpuWorkWithoutLaunch,  // gpu_work_without_launch
  kGrainEndMismatch,  // grain_end_mismatch
  kIgnoredAttributes,  // ignored_attributes
  kImproperNestingRepaired,  // improper_nesting_repaired
  kIncompleteReceives,  // incomplete_receives
  kInvalidRecords,  // invalid_records
  kLateBarrierEndsMoved,  // late_barrier_ends_moved
  kLaunchFlowsReplaced,  // launch_flows_replaced
  kMissingBlocks,  // missing_blocks
  kMissingLocationFiles,  // missing_location_files
  kMissingRankFiles,  // missing_rank_files
  kOtherRunFiles,  // other_run_files
  kProfilerSpans,  // profiler_spans
  kRanksWithoutMpiInit,  // ranks_without_mpi_init
  kReceiveBeforeSend,  // receive_before_send
  kReceivesWithoutSend,  // receives_without_send
  kRecordsNotAnalysed,  // records_not_analysed
  kSendsWithoutReceive,  // sends_without_receive
  kSharedProcessorIds,  // shared_processor_ids
  kSkippedChunks,  // skipped_chunks
  kSkippedLines,  // skipped_lines
  kSkippedLocations,  // skipped_locations
  kSkippedRecords,  // skipped_records
  kStrayEvents,  // stray_events
  kTimeWentBackwards,  // time_went_backwards
  kTraceNotFinished,  // trace_not_finished
  kTruncatedSlices,  // truncated_slices
  kUnclosedRegions,  // unclosed_regions
  kUnclosedSlices,  // unclosed_slices
  kUnfinishedCollectives,  // unfinished_collectives
  kUnknownCommunicators,  // unknown_communicators
  kUnknownRanks,  // unknown_ranks
  kUnknownRequests,  // unknown_requests
  kUnmatchedLeavesDropped,  // unmatched_leaves_dropped
  kUnpairedFlows,  // unpaired_flows
  kUnreadableRankFiles,  // unreadable_rank_files
};
inline constexpr int kDiagCount = 49;


enum class DiagnosticSeverity : unsigned char {
  kIgnored,   // kept out of the model, changes no result (record attributes): listed by `info` only
  kSkipped,   // records or lines the reader skipped (kinds it does not model, program output)
  kSuspect,   // kept as recorded, but inconsistent (a receive before its send: clocks disagree)
  kRepaired,  // the reader changed what it read to make it analysable (closed a region, cut a slice)
  kDataLoss,  // part of the run is missing (lost blocks, a message's other end, a truncated file)
};
std::string_view DiagnosticSeverityName(DiagnosticSeverity s);

struct DiagnosticKind {
  Diag id;
  std::string_view name;         // snake_case, as counted: "skipped_lines"
  DiagnosticSeverity severity;
  std::string_view description;  // reads after a count: "3 <description>"
};

// Every declared kind, in Diag's order.
std::span<const DiagnosticKind> DiagnosticKinds();
const DiagnosticKind& KindOf(Diag kind);

// The kind named `name`, or nullptr when no reader may count it.
const DiagnosticKind* FindDiagnosticKind(std::string_view name);

// One note per counted kind that can change a result (every severity but kIgnored), in the order
// the reader first met them, one line each:
//   "3 message(s) received but never sent [receives_without_send]; first: q.gst: message 'item' ..."
std::vector<std::string> DiagnosticNotes(const Diagnostics& diagnostics);

}  // namespace grainscope
