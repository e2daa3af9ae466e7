// One rank file of a .gst rank directory (gst_dir_reader.h) read as a part of the run
// (model/trace_parts.h): the reader translates libgrainscope-mpi's MPI records and labels
// (gst_format.h, gst_mpi_labels.h) while
// it appends the file's events, once, into the part's own model rows — communicators, collective
// members with their sequence numbers, the clock offsets and the eager limit — so nothing is
// re-read from markers afterwards. The per-file "send"/"receive" helper regions around message
// events are left out (the MPI call's region is the call); other markers stay markers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "format/gst/gst_mpi_labels.h"
#include "model/collective_matcher.h"
#include "model/message_matcher.h"
#include "model/trace_builder.h"
#include "model/trace_parts.h"

namespace grainscope::gst {

// What the labels of one rank file said about the file.
struct RankLabels {
  bool labelled = false;  // written by libgrainscope-mpi (it has an "mpi.rank" label)
  int rank = -1;
  std::optional<uint64_t> run;  // the run it belongs to
  std::optional<MpiClockLabel> init, finalize;
  TimeNs init_time = 0, finalize_time = 0;  // the clock labels' own (file) times
  std::optional<MpiEagerLimitLabel> eager_limit;  // what the MPI library said
};

struct RankPart {
  TracePart part;  // rank, clock and metadata are set once the directory's ranks are known
  RankLabels labels;
  bool has_init = false;  // its main location's first region is MPI_Init (or MPI_Init_thread)
  std::optional<int64_t> origin_monotonic_ns;  // CLOCK_MONOTONIC at file time 0
};

// Reads the rank file at `path` as a part.
Result<RankPart> ReadRankPart(const std::string& path);

// The translation, used by the .gst reader while it appends each location's events in location
// order (the rank's locations share its collective sequence, in that order).
class MpiLabelTranslator {
 public:
  MpiLabelTranslator(std::string_view file, RankPart& out) : file_(file), out_(out) {}

  // A location begins; `marks` are its non-blocking collectives' begins and ends in order (to tell
  // which end on it).
  void StartLocation(const std::vector<NonBlockingMark>& marks);
  void Enter() { ++depth_; }
  // Before the Leave of the innermost open region at `t`: ends the blocking collective its call
  // holds.
  void BeforeLeave(TraceBuilder& b, LocationId loc, TimeNs t);
  // An "mpi." label at `t` on `loc`.
  void Label(TraceBuilder& b, LocationId loc, TimeNs t, std::string_view label);
  // A channel of the part's messages (TracePart::Channel): an MPI record's (communicator key,
  // sender, receiver, tag), or a name — a 2.4 message name "mpi.msg ..." is that MPI channel.
  // AddMessageChannel gives the part's next message row its channel.
  TracePart::Channel MessageChannel(std::string_view communicator, int32_t sender, int32_t receiver, int32_t tag);
  TracePart::Channel NamedMessageChannel(std::string_view name);
  void AddMessageChannel(const TracePart::Channel& c) { out_.part.message_channels.push_back(c); }
  // A collective's begin (a 2.5 record or a 2.4 label) and a non-blocking one's end.
  void Collective(TraceBuilder& b, LocationId loc, TimeNs t, const MpiCollLabel& coll);
  void CollectiveEnd(TraceBuilder& b, LocationId loc, TimeNs t, uint32_t slot);

 private:
  CommunicatorId PartCommunicator(TraceBuilder& b, const std::string& key);

  std::string_view file_;
  RankPart& out_;
  std::unordered_map<std::string, CommunicatorId> part_comm_;  // the part's own, per key
  std::unordered_map<std::string, uint32_t> channel_text_;  // index in the part's channel_texts
  uint32_t ChannelText(std::string_view text);
  // The k-th collective the rank begins on a communicator is instance k of it (its threads share
  // the rank's sequence): the rank is the one participant of this part.
  ChannelIds<std::string> communicator_ids_;
  CollectiveMatcher sequence_;
  // Per location:
  std::vector<bool> finished_;  // per non-blocking collective begun, in order: does it end here?
  size_t nonblocking_begun_ = 0;
  std::unordered_map<uint32_t, CollectiveId> in_slot_;
  std::optional<CollectiveId> open_collective_;
  size_t depth_ = 0, collective_depth_ = 0;  // open regions now; at the open collective's label
};

// The .gst reader's side of ReadRankPart (gst_reader.cc): the file at `path` read through `mpi`.
Result<Trace> ReadGstFileAsPart(const std::string& path, MpiLabelTranslator& mpi);

}  // namespace grainscope::gst
