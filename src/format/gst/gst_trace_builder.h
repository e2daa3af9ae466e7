// The .gst reader's trace builder, internal to format/gst: each stream's event blocks decoded and
// checked (gst_decode.cc), then the trace's locations, regions, messages and events assembled
// (gst_reader.cc).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/status.h"
#include "format/format_names.h"
#include "format/gst/gst_chunks.h"
#include "format/gst/gst_clock.h"
#include "format/gst/gst_format.h"
#include "format/gst/gst_mpi_labels.h"
#include "model/message_matcher.h"
#include "model/trace_builder.h"
#include "model/trace_parts.h"

namespace grainscope::gst {
class MpiLabelTranslator;  // gst_rank_part.h
}  // namespace grainscope::gst

namespace grainscope::gst_reader {

using gst::Chunks;

// One decoded record of a stream. MPI records (version 2.5): `id` is the communicator's key (a
// string); a message's peer, size and tag are `peer`, `bytes` and `grain_id`; a collective's op is
// `sub`, its root, bytes sent and received and slot are `peer`, `bytes`, `grain_id` and `grain`; a
// collective end's slot is `id`.
struct Event {
  TimeNs time;
  uint8_t kind;
  uint16_t sub;  // an MPI collective's operation (gst::MpiCollOpNumber)
  uint32_t id;
  uint64_t bytes = 0;
  int32_t peer = gst::kNoPeer;
  uint32_t grain = gst::kNoRegion;
  uint32_t block;  // index into the stream's sorted blocks, for messages
  uint32_t index;  // record index in that block
  TimeNs end_time = 0;  // send begin: the time of its send end (FIFO order of completion)
  int64_t grain_id = 0;  // grain begin/end: the grain id (the site is `id`)
};

// A message's channel in a file: its name (a string id; sender = kNamed), or an MPI record's
// communicator key (a string id) with the sender's and receiver's world ranks and the tag.
struct ChannelKey {
  static constexpr int32_t kNamed = INT32_MIN;
  uint32_t string = 0;
  int32_t sender = kNamed, receiver = 0, tag = 0;
  bool operator==(const ChannelKey&) const = default;
};
struct ChannelKeyHash {
  size_t operator()(const ChannelKey& k) const { return HashChannelFields(k.string, k.sender, k.receiver, k.tag); }
};

struct Stream {
  uint32_t id;
  gst::StreamChunks* chunks;
  std::vector<Event> events;
  std::set<int64_t> processors;
  LocationId location;
  std::vector<std::pair<uint32_t, MessageId>> messages;  // (event, message) of its sends and receives, by event
};

// A message end taking part in name matching: stream index, event index.
struct MessageEnd {
  TimeNs order_time;
  uint32_t stream;
  uint32_t event;
};

class GstTraceBuilder {
 public:
  GstTraceBuilder(Chunks chunks, std::string_view file, bool derive_thread_sync)
      : chunks_(std::move(chunks)), file_(file), builder_(std::string(kGstFormat)) {
    builder_.SetDeriveThreadSync(derive_thread_sync);
  }
  // A rank file read as a part of its run (gst_rank_part.h): `mpi` translates its "mpi." labels,
  // the helper regions around message events are left out, and the thread-sync edges are not
  // derived (the merged trace derives them).
  GstTraceBuilder(Chunks chunks, std::string_view file, gst::MpiLabelTranslator* mpi)
      : GstTraceBuilder(std::move(chunks), file, /*derive_thread_sync=*/false) {
    mpi_ = mpi;
  }

  Result<Trace> Run();

 private:
  template <typename... Args>
  Status ErrorAt(const Stream& s, const Event& e, fmt::format_string<Args...> f, Args&&... args) {
    return DataLoss(fmt::format("{}: {} (stream {}): {}", file_, s.chunks->blocks[e.block].Where(e.index), s.id,
                                fmt::format(f, std::forward<Args>(args)...)));
  }

  std::string RegionName(uint32_t id) const {
    auto it = chunks_.regions.find(id);
    return it == chunks_.regions.end() ? fmt::format("#{}", id) : it->second.name;
  }
  std::string StringText(uint32_t id) const {
    auto it = chunks_.strings.find(id);
    return it == chunks_.strings.end() ? fmt::format("#{}", id) : it->second;
  }
  static bool IsRegionBegin(uint8_t kind) { return kind == gst::kRecordRegionBegin || kind == gst::kRecordGrainBegin; }

  // Decoding and checking each stream's records (gst_decode.cc).
  Status Decode(Stream& s);
  void EndStreamAt(Stream& s, size_t b, uint32_t expected);
  Status DecodeBlock(Stream& s, uint32_t b);
  Status DecodeMpiSlots(const Stream& s, Event& e, const gst::Record& r, const unsigned char* slots);
  std::optional<TimeNs> FirstEventTime() const;
  static std::string_view KindName(uint8_t kind);
  std::string What(const Event& e) const;
  Status CheckNesting(Stream& s);
  void CloseUnended(Stream& s, std::vector<uint32_t>& open);

  // Assembling the trace (gst_reader.cc).
  void AddLocations();
  void AddRegions();
  ChannelKey ChannelOf(const Event& e) const;
  std::string ChannelName(const ChannelKey& key) const;
  TracePart::Channel PartChannel(const ChannelKey& key) const;
  void MatchMessages();
  void AddMessage(const ChannelKey& key, std::string& name, const MessageEnd* send_end, const MessageEnd* recv_end);
  void AppendEvents(const Stream& s);
  void AppendMpiCollective(const Event& e, LocationId loc);
  std::vector<gst::NonBlockingMark> NonBlockingMarks(const Stream& s) const;
  size_t ModelEvents(const Stream& s) const;
  std::optional<int> SelfRank() const;
  void AddMetadataAndDiagnostics();
  std::string TruncatedLocation() const;

  // Closes a receive that never ended (no message arrives): not a kind in the file.
  static constexpr uint8_t kSyntheticRecvClose = 0xff;

  Chunks chunks_;
  std::string_view file_;
  gst::MpiLabelTranslator* mpi_ = nullptr;
  TraceBuilder builder_;
  ClockConverter clock_;
  std::vector<Stream> streams_;
  std::map<uint32_t, RegionId> regions_;
  RegionId send_region_, recv_region_;
  int32_t self_rank_ = -1;  // a rank file's world rank ("mpi.rank"), for its MPI records' channels
  std::optional<TimeNs> origin_;
  uint64_t skipped_records_ = 0, missing_blocks_ = 0, backwards_ = 0, unclosed_ = 0;
  UnmatchedEnds unmatched_;
  uint64_t shared_processors_ = 0;
  uint64_t grain_end_mismatches_ = 0;
  std::string first_grain_end_mismatch_;
  uint64_t damaged_blocks_ = 0, lost_blocks_ = 0, lost_records_ = 0;
  std::string first_damaged_block_, first_lost_;
  std::string first_skipped_record_, first_missing_, first_backwards_, first_unclosed_;
};

}  // namespace grainscope::gst_reader
