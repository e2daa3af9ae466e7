// A trace recorded as several files, one per rank (a .gst rank directory, a PyTorch profiler's
// rank directory; later Paraver, Projections or Nsight per-process files), is read as independent
// parts: each file into its own TracePart, on as many threads as there are files
// (base/parallel.h), with nothing shared. Then MergeParts makes the one Trace, once, in file
// order, so the result does not depend on the number of threads. Two shapes of parts
// (PartShape): MPI ranks, whose messages and collectives span the parts, and whole files, which
// share only names and a time base. For MPI ranks:
//   * ids: part p's location 0 becomes "rank R" (R its rank, a kRank location with id R), its
//     other locations "rank R <name>" (threads of that rank); regions are merged by (name, role,
//     region key), in order of first use; strings are interned again;
//   * clocks: each part's times go through its ClockMap onto one time base, kept in order on each
//     location (an interpolation must not reorder a location's events);
//   * messages: a part's message rows with a side that is not in the part are paired across parts
//     per channel (the row's name, or the part's message_channels), FIFO in each side's order of
//     completion: by that end's time in its own part, ties by part, location and event (MPI's
//     non-overtaking rule: a channel has one sender and one receiver). Channels are taken in order
//     (MPI channels by communicator key, sender, receiver and tag, then named ones by name), which
//     gives the message ids;
//   * collectives: a part holds its own members of an operation; the members with equal
//     (communicator key, sequence number) in all parts are one instance (model/collective_matcher.h);
//   * sync objects of a process (locks, barriers) are made distinct per part (ProcessSyncObject),
//     and the thread-sync edges and barrier instances are derived once, in the merged trace;
//   * diagnostics: the options' first, then each part's notes and its trace's own, then those of
//     the merge (messages a channel has no partner for).
// For whole files, every location keeps its kind, external id and process under the name
// "rank R <name>"; regions are merged by (name, role, region key) in part order, unused ones
// included; each part's communicators, messages and collectives are its own rows, renumbered,
// except message rows with a side missing on a channel the format pairs across files
// (MergeOptions::pairs_across_files: NCCL's send/recv kernels, each file holding one end),
// paired per channel (the row's name) as for MPI ranks, and collective rows that name a
// communicator key (PartCollective): the rows of all parts with equal (key, sequence) are one
// instance, on one communicator per key whose members are the locations of all parts' rows of
// that key (NCCL's process groups in a PyTorch rank directory);
// each part's metadata keys are prefixed "rank R "; clocks and diagnostics as above.
// Memory: an MPI rank part's locations are moved into the merged trace, their columns rewritten in
// place (TraceBuilder::TakeEvents), so a run's events are never held twice; a part is freed once
// its events are in.
#pragma once

#include <cstdint>
#include <climits>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

// A part's clock onto the merged time base: t + base, plus an offset that drifts linearly from
// `drift_from` to `drift_to` (in part time) by `drift_ns` in all, constant outside that span (the
// offsets a clock synchronisation measured at the start and end of a run, as Scalasca interpolates
// them).
struct ClockMap {
  int64_t base = 0;
  TimeNs drift_from = 0, drift_to = 0;
  int64_t drift_ns = 0;

  int64_t operator()(TimeNs t) const {
    if (drift_ns == 0 || drift_to <= drift_from) return t + base;
    const TimeNs c = t < drift_from ? drift_from : (t > drift_to ? drift_to : t);
    const __int128 span = drift_to - drift_from;
    return t + base + static_cast<int64_t>(static_cast<__int128>(drift_ns) * (c - drift_from) / span);
  }
};

// A communicator the parts name by `key`; its members are ranks (parts' `rank`).
struct PartCommunicator {
  std::string key;
  std::string name;  // in the merged trace
  std::vector<int64_t> member_ranks;
};

// What one of a part's collective rows (by CollectiveId) is in the whole run: the instance number
// `sequence` on communicator `communicator` (the same in every member's part), rooted at a rank.
struct PartCollective {
  std::string communicator;
  uint32_t sequence = 0;
  int64_t root_rank = -1;  // -1: rootless
  // false: the format numbers no operations and `sequence` is the reader's guess (its order in
  // the part), which a reader may replace by matching the parts' rows otherwise before merging.
  bool sequence_known = true;
};

enum class PartShape : uint8_t { kMpiRanks, kWholeFiles };

struct TracePart {
  std::string name;  // its file, in messages
  int64_t rank = -1;
  // The part read alone, without the thread-sync edges (Finish derives them in the merged trace):
  // its messages with a side elsewhere are rows with that side missing; its collective rows hold
  // its own members only, with a communicator of its own.
  Trace trace;
  ClockMap clock;
  // Per region of `trace`, what tells it from another region of the same name and role in this
  // format (Chrome's category: "cpu_op" and "user_annotation" slices of one name are two regions);
  // empty: nothing.
  std::vector<std::string> region_keys;
  std::vector<PartCommunicator> communicators;
  std::vector<PartCollective> collectives;  // one per row of trace.collectives()
  // What the part's reader found about the part that its trace does not say (a rank without
  // MPI_Init); added before the trace's diagnostics. `collective_notes`: about its collectives
  // (one begun and never completed), added after its events are merged.
  Diagnostics notes, collective_notes;
  std::vector<std::pair<std::string, std::string>> metadata;  // for the merged trace
  // Where the reader knows them (a .gst rank file): per message row of `trace`, in row order, its
  // channel, and the rows have no names. An MPI channel is (communicator key, sender rank,
  // receiver rank, tag); a named one (sender kNamedChannel) is its name. Keys and names are
  // indices into channel_texts. Empty: each row's name is its channel (describe_channel).
  struct Channel {
    uint32_t text = 0;
    int32_t sender = 0, receiver = 0, tag = 0;
  };
  static constexpr int32_t kNamedChannel = INT32_MIN;
  std::vector<Channel> message_channels;
  std::vector<std::string> channel_texts;
};

// What a channel's name says about the messages on it, where the format says it (an MPI channel:
// communicator key, sender and receiver rank, tag). A side that no part holds then still has its
// rank's location.
struct ChannelEnds {
  std::string communicator;
  int64_t sender_rank = -1;
  int64_t receiver_rank = -1;
  int32_t tag = 0;
};

struct MergeOptions {
  std::string format;
  PartShape shape = PartShape::kMpiRanks;
  std::string world_communicator;  // the communicator key listed first; the others follow by key
  // nullopt: a channel of the format's own naming (the messages keep the name).
  std::function<std::optional<ChannelEnds>(std::string_view channel)> describe_channel;
  // The eager limit for rendezvous edges (model/rendezvous.h): `eager_limit` when the recording
  // read it (with where from), else `assumed_eager_limit` unless the metadata holds one.
  std::optional<std::pair<uint64_t, std::string>> eager_limit;
  uint64_t assumed_eager_limit = 0;
  std::string assumed_eager_limit_source;
  // Whole files: the channels (message names) whose rows with a side missing have that side in
  // another file; null: none.
  std::function<bool(std::string_view channel)> pairs_across_files;
  // Diagnostic kinds of a part that mean nothing for the whole (a part's unmatched messages are
  // paired across parts): not copied. With both unmatched-message kinds here, whole files' rows
  // that stay unmatched are reported by the merge instead.
  std::vector<Diag> part_only_diagnostics;
  Diagnostics notes;  // about the files (unreadable ones, another run's): first
  std::vector<std::pair<std::string, std::string>> metadata;  // after part 0's trace's metadata
};

// `parts` in rank order, ranks distinct.
Result<Trace> MergeParts(std::vector<TracePart> parts, const MergeOptions& options);

}  // namespace grainscope
