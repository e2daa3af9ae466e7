#include "format/gst/gst_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "base/mapped_file.h"
#include "format/gst/gst_chunks.h"
#include "format/gst/gst_dir_reader.h"
#include "format/gst/gst_format.h"
#include "format/gst/gst_model_numbers.h"
#include "format/gst/gst_rank_part.h"
#include "format/gst/gst_trace_builder.h"
#include "model/message_matcher.h"
#include "model/metadata_keys.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using gst::Chunks;

}  // namespace

namespace gst_reader {

Result<Trace> GstTraceBuilder::Run() {
  GS_ASSIGN_OR_RETURN(clock_, ClockConverter::Make(chunks_.clock_samples, file_));
  for (auto& [id, stream_chunks] : chunks_.streams) {
    Stream s{id, &stream_chunks, {}, {}, {}};
    GS_RETURN_IF_ERROR(Decode(s));
    // A thread that only set the origin or its processor id (the seed's main thread calling
    // initialize_clock()) is not a location: it did nothing the analyses could show.
    const bool has_events = std::any_of(s.events.begin(), s.events.end(), [](const Event& e) {
      return e.kind != gst::kRecordProcessor && e.kind != gst::kRecordOrigin;
    });
    if (has_events) streams_.push_back(std::move(s));
  }
  if (!origin_) origin_ = FirstEventTime();
  for (Stream& s : streams_) GS_RETURN_IF_ERROR(CheckNesting(s));
  self_rank_ = SelfRank().value_or(-1);
  AddLocations();
  AddRegions();
  MatchMessages();
  if (mpi_ == nullptr) {
    for (Stream& s : streams_) AppendEvents(s);
  } else {
    // In location order: a rank's collectives take their sequence numbers in that order.
    std::vector<const Stream*> by_location;
    for (const Stream& s : streams_) by_location.push_back(&s);
    std::sort(by_location.begin(), by_location.end(), [](const Stream* a, const Stream* b) { return a->location < b->location; });
    for (const Stream* s : by_location) AppendEvents(*s);
  }
  AddMetadataAndDiagnostics();
  // A converted MPI trace: its rendezvous sends (a part's are decided once it is merged).
  if (mpi_ == nullptr) builder_.SetEagerLimitIfRecorded();
  return builder_.Finish();
}

// Threads that recorded exactly one seed processor id, used by no other thread, become
// "processor <id>"; the others are threads. Processors come first, by id; then threads, in
// the order they started recording, numbered after the largest processor id (from 0 when
// there is none): a thread the program did not number must not share an id with a processor
// it did (a producer thread that only sends was "thread 0" beside "processor 0").
void GstTraceBuilder::AddLocations() {
  std::map<int64_t, int> claims;
  for (const Stream& s : streams_)
    for (int64_t p : s.processors) claims[p]++;
  std::vector<std::pair<int64_t, Stream*>> processors;
  std::vector<Stream*> threads;
  for (Stream& s : streams_) {
    if (s.processors.size() == 1 && claims[*s.processors.begin()] == 1) {
      processors.emplace_back(*s.processors.begin(), &s);
    } else {
      threads.push_back(&s);
      if (!s.processors.empty()) ++shared_processors_;
    }
  }
  std::sort(processors.begin(), processors.end());
  for (auto& [id, s] : processors) {
    const auto& def = s->chunks->location;
    std::string name = def && !def->name.empty() ? def->name : fmt::format("processor {}", id);
    s->location = builder_.AddLocation(name, LocationKind::kProcessor, id);
  }
  int64_t next_id = processors.empty() ? 0 : std::max<int64_t>(0, processors.back().first + 1);
  for (Stream* s : threads) {  // streams_ is in stream order
    const int64_t id = next_id++;
    const auto& def = s->chunks->location;
    std::string name = def && !def->name.empty() ? def->name : fmt::format("thread {}", id);
    s->location = builder_.AddLocation(name, LocationKind::kThread, id);
  }
}

// One region per definition: a grain site whose executions carry ids of their own
// (gs_grain_begin_id) is one region too, each execution an instance with its id.
void GstTraceBuilder::AddRegions() {
  for (const auto& [id, def] : chunks_.regions)
    regions_[id] = builder_.AddRegion(def.name, gst::ModelRole(def.role),
                                      def.external_id == gst::kNoExternalId ? id : def.external_id);
  send_region_ = builder_.AddRegion("send", RegionRole::kPointToPoint, -1);
  recv_region_ = builder_.AddRegion("receive", RegionRole::kPointToPoint, -1);
}

// A rank file's world rank, from its "mpi.rank" label (the sender of its MPI sends, the receiver
// of its receives).
std::optional<int> GstTraceBuilder::SelfRank() const {
  for (const auto& [id, text] : chunks_.strings) {
    if (!text.starts_with("mpi.rank ")) continue;
    if (auto r = gst::ParseMpiRank(text)) return r->rank;
  }
  return std::nullopt;
}

// A send's or receive's channel: its name, or an MPI record's (communicator, sender, receiver, tag).
ChannelKey GstTraceBuilder::ChannelOf(const Event& e) const {
  if (e.kind == gst::kRecordMpiSend) return {e.id, self_rank_, e.peer, static_cast<int32_t>(e.grain_id)};
  if (e.kind == gst::kRecordMpiRecv) return {e.id, e.peer, self_rank_, static_cast<int32_t>(e.grain_id)};
  return {e.id};
}

// A channel's name, the name its messages get: an MPI channel's is the one 2.4 files wrote
// ("mpi.msg <communicator> <sender> <receiver> <tag>"), which the directory reader's merge pairs by.
std::string GstTraceBuilder::ChannelName(const ChannelKey& key) const {
  if (key.sender == ChannelKey::kNamed) return StringText(key.string);
  return fmt::format("mpi.msg {} {} {} {}", StringText(key.string), key.sender, key.receiver, key.tag);
}

// A rank directory part's channel for `key` (TracePart::Channel).
TracePart::Channel GstTraceBuilder::PartChannel(const ChannelKey& key) const {
  if (key.sender != ChannelKey::kNamed) return mpi_->MessageChannel(StringText(key.string), key.sender, key.receiver, key.tag);
  return mpi_->NamedMessageChannel(StringText(key.string));
}

// FIFO per channel, in order of completion (see gst_reader.h).
void GstTraceBuilder::MatchMessages() {
  ChannelIds<ChannelKey, ChannelKeyHash> channels;
  FifoMessageMatcher<MessageEnd> matcher;
  for (uint32_t si = 0; si < streams_.size(); ++si) {
    const Stream& s = streams_[si];
    for (uint32_t i = 0; i < s.events.size(); ++i) {
      const Event& e = s.events[i];
      switch (e.kind) {
        case gst::kRecordSendBegin: matcher.AddSend(channels.Id(ChannelOf(e)), {e.end_time, si, i}); break;
        case gst::kRecordMpiSend: matcher.AddSend(channels.Id(ChannelOf(e)), {e.time, si, i}); break;
        case gst::kRecordRecvEnd:
        case gst::kRecordMpiRecv: matcher.AddReceive(channels.Id(ChannelOf(e)), {e.time, si, i}); break;
        default: break;
      }
    }
  }
  matcher.Group();
  auto by_completion = [this](const MessageEnd& a, const MessageEnd& b) {
    if (a.order_time != b.order_time) return a.order_time < b.order_time;
    if (streams_[a.stream].id != streams_[b.stream].id) return streams_[a.stream].id < streams_[b.stream].id;
    return a.event < b.event;
  };
  matcher.OrderEachChannel(by_completion);
  struct Pair {
    TimeNs time;
    uint32_t stream_id;
    uint32_t event;
    uint32_t channel;
    const MessageEnd* send;
    const MessageEnd* recv;
  };
  std::vector<Pair> pairs;
  matcher.MatchAll([&](uint32_t channel, const MessageEnd* send, const MessageEnd* recv) {
    const MessageEnd& any = send != nullptr ? *send : *recv;
    const Event& e = streams_[any.stream].events[any.event];
    pairs.push_back({e.time, streams_[any.stream].id, any.event, channel, send, recv});
  });
  // Message ids in order of the send (or, unsent, the receive), ties by stream and position.
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    if (a.time != b.time) return a.time < b.time;
    if (a.stream_id != b.stream_id) return a.stream_id < b.stream_id;
    return a.event < b.event;
  });
  std::vector<std::string> names(channels.size());  // made once per channel, where one is needed
  std::vector<std::optional<TracePart::Channel>> part_channels(mpi_ != nullptr ? channels.size() : 0);
  for (const Pair& p : pairs) {
    if (mpi_ != nullptr) {
      std::optional<TracePart::Channel>& c = part_channels[p.channel];
      if (!c) c = PartChannel(channels.key(p.channel));
      mpi_->AddMessageChannel(*c);
    }
    AddMessage(channels.key(p.channel), names[p.channel], p.send, p.recv);
  }
  for (Stream& s : streams_) std::sort(s.messages.begin(), s.messages.end());
}

// A message of channel `key` from its matched ends (either may be missing: counted). A rank
// directory's part gives its channel (MatchMessages) instead of naming the message; else the
// message is named after its channel (`name`: made on first use).
void GstTraceBuilder::AddMessage(const ChannelKey& key, std::string& name, const MessageEnd* send_end,
                                 const MessageEnd* recv_end) {
  MessageInfo info;
  const Event* send = send_end ? &streams_[send_end->stream].events[send_end->event] : nullptr;
  const Event* recv = recv_end ? &streams_[recv_end->stream].events[recv_end->event] : nullptr;
  auto channel_name = [&]() -> const std::string& {
    if (name.empty()) name = ChannelName(key);
    return name;
  };
  if (mpi_ == nullptr) info.name = channel_name();
  if (send) {
    info.sender = streams_[send_end->stream].location;
    info.bytes = send->bytes;
    if (send->kind == gst::kRecordSendBegin && send->grain != gst::kNoRegion) info.send_grain = regions_.at(send->grain);
  }
  if (recv) {
    info.receiver = streams_[recv_end->stream].location;
    if (info.bytes == 0) info.bytes = recv->bytes;
    if (recv->kind == gst::kRecordRecvEnd && recv->grain != gst::kNoRegion) info.recv_grain = regions_.at(recv->grain);
  }
  const MessageId m = builder_.AddMessage(info);
  if (send) streams_[send_end->stream].messages.emplace_back(send_end->event, m);
  if (recv) streams_[recv_end->stream].messages.emplace_back(recv_end->event, m);
  if (!send) unmatched_.NoSend([&] { return fmt::format("{}: message '{}' is received but never sent", file_, channel_name()); });
  if (!recv) unmatched_.NoReceive([&] { return fmt::format("{}: message '{}' is sent but never received", file_, channel_name()); });
}

// The begins and ends of the stream's non-blocking collectives, in order: 2.5's records and 2.4's
// labels.
std::vector<gst::NonBlockingMark> GstTraceBuilder::NonBlockingMarks(const Stream& s) const {
  std::vector<gst::NonBlockingMark> marks;
  for (const Event& e : s.events) {
    if (e.kind == gst::kRecordMpiCollective && e.grain != 0) marks.push_back({e.grain, false});
    if (e.kind == gst::kRecordMpiCollectiveEnd) marks.push_back({e.id, true});
    if (e.kind != gst::kRecordMarker) continue;
    auto it = chunks_.strings.find(e.id);
    if (it == chunks_.strings.end()) continue;
    if (auto mark = gst::NonBlockingMarkOf(it->second)) marks.push_back(*mark);
  }
  return marks;
}

// At least as many events as AppendEvents appends for `s` (one more would double the columns): its
// events, the helper regions' enters and leaves, and in a part the end of each blocking collective
// a record or a 2.4 label begins (ended before its call's leave).
size_t GstTraceBuilder::ModelEvents(const Stream& s) const {
  const bool helpers = mpi_ == nullptr;
  size_t extra = 0;
  for (const Event& e : s.events) {
    if (helpers) extra += e.kind == gst::kRecordSendBegin || e.kind == gst::kRecordRecvEnd;
    else extra += e.kind == gst::kRecordMpiCollective || e.kind == gst::kRecordMarker;
  }
  return s.events.size() + extra;
}

// A rank file read as a part (mpi_, gst_rank_part.h) has its MPI records and "mpi." labels
// translated and no helper regions around its message events (the MPI call's region is the call).
void GstTraceBuilder::AppendEvents(const Stream& s) {
  const LocationId loc = s.location;
  const bool helpers = mpi_ == nullptr;
  if (mpi_ != nullptr) mpi_->StartLocation(NonBlockingMarks(s));
  builder_.Reserve(loc, ModelEvents(s));
  auto message = s.messages.begin();  // the stream's messages, in event order
  auto message_at = [&](uint32_t i) {
    while (message != s.messages.end() && message->first < i) ++message;
    return message->second;  // every send and receive has one (MatchMessages)
  };
  for (uint32_t i = 0; i < s.events.size(); ++i) {
    const Event& e = s.events[i];
    switch (e.kind) {
      case gst::kRecordRegionBegin:
      case gst::kRecordGrainBegin:  // a grain numbered per execution: an instance with its id
        if (mpi_ != nullptr) mpi_->Enter();
        if (e.kind == gst::kRecordGrainBegin) builder_.EnterInstance(loc, e.time, regions_.at(e.id), e.grain_id);
        else builder_.Enter(loc, e.time, regions_.at(e.id));
        break;
      case gst::kRecordRegionEnd:
      case gst::kRecordGrainEnd:
        if (mpi_ != nullptr) mpi_->BeforeLeave(builder_, loc, e.time);
        builder_.Leave(loc, e.time, regions_.at(e.id));
        break;
      case gst::kRecordSendBegin:
        if (helpers) builder_.Enter(loc, e.time, send_region_);
        builder_.Send(loc, e.time, message_at(i));
        break;
      case gst::kRecordSendEnd:
        if (helpers) builder_.Leave(loc, e.time, send_region_);
        break;
      case gst::kRecordRecvBegin:
        if (helpers) builder_.Enter(loc, e.time, recv_region_);
        break;
      case gst::kRecordRecvEnd:
        builder_.Recv(loc, e.time, message_at(i));
        if (helpers) builder_.Leave(loc, e.time, recv_region_);
        break;
      case kSyntheticRecvClose:
        if (helpers) builder_.Leave(loc, e.time, recv_region_);
        break;
      case gst::kRecordMpiSend: builder_.Send(loc, e.time, message_at(i)); break;
      case gst::kRecordMpiRecv: builder_.Recv(loc, e.time, message_at(i)); break;
      case gst::kRecordMpiCollective:
      case gst::kRecordMpiCollectiveEnd: AppendMpiCollective(e, loc); break;
      case gst::kRecordMarker: {
        const std::string text = StringText(e.id);
        if (mpi_ != nullptr && std::string_view(text).starts_with(gst::kMpiLabelPrefix)) {
          mpi_->Label(builder_, loc, e.time, text);
        } else {
          builder_.Marker(loc, e.time, builder_.Intern(text));
        }
        break;
      }
      case gst::kRecordSync: builder_.Sync(loc, e.time, static_cast<SyncKind>(e.peer), e.bytes, e.id); break;
      default: break;  // processor and origin records are not events of the model
    }
  }
}

// An MPI collective's begin or a non-blocking one's end: translated in a rank directory's part; in
// a rank file read alone, the marker a 2.4 file held instead ("mpi.coll ...", "mpi.icoll_end ...").
void GstTraceBuilder::AppendMpiCollective(const Event& e, LocationId loc) {
  if (e.kind == gst::kRecordMpiCollectiveEnd) {
    if (mpi_ != nullptr) return mpi_->CollectiveEnd(builder_, loc, e.time, e.id);
    builder_.Marker(loc, e.time, builder_.Intern(fmt::format("mpi.icoll_end {}", e.id)));
    return;
  }
  gst::MpiCollLabel coll{std::string(gst::MpiCollOpNameOf(e.sub)), StringText(e.id), e.peer, e.bytes,
                         static_cast<uint64_t>(e.grain_id), e.grain};
  if (mpi_ != nullptr) return mpi_->Collective(builder_, loc, e.time, coll);
  builder_.Marker(loc, e.time, builder_.Intern(gst::MpiCollLabelText(coll)));
}

// "; it held events of location 'worker 2'" when the file ends inside an event block: the note
// names whose events were cut off, as every table names that location.
std::string GstTraceBuilder::TruncatedLocation() const {
  if (!chunks_.truncated_stream) return {};
  for (const Stream& s : streams_) {
    if (s.id == *chunks_.truncated_stream)
      return fmt::format("; it held events of location '{}', which end before it", builder_.LocationName(s.location));
  }
  const auto it = chunks_.streams.find(*chunks_.truncated_stream);
  if (it != chunks_.streams.end() && it->second.location && !it->second.location->name.empty())
    return fmt::format("; it held the first events of location '{}'", it->second.location->name);
  return fmt::format("; it held events of stream {} (a thread the rest of the file does not name)",
                     *chunks_.truncated_stream);
}

void GstTraceBuilder::AddMetadataAndDiagnostics() {
  builder_.SetOrigin(origin_.value_or(0));
  for (const auto& [key, value] : chunks_.metadata) builder_.AddMetadata(key, value);
  builder_.AddMetadata(metadata::kGstVersion, fmt::format("{}.{}", chunks_.version_major, chunks_.version_minor));
  // Time zero's CLOCK_MONOTONIC reading: how the MPI directory reader puts ranks on one clock.
  if (!chunks_.clock_samples.empty()) {
    builder_.AddMetadata(metadata::kClockOriginMonotonicNs, fmt::format("{}", chunks_.clock_samples.front().monotonic_ns));
  }
  Diagnostics& d = builder_.diagnostics();
  if (chunks_.end) {
    builder_.AddMetadata(metadata::kDroppedEvents, fmt::format("{}", chunks_.end->dropped_events));
    builder_.AddMetadata(metadata::kEnd, chunks_.end->reason == gst::kEndSignal ? fmt::format("signal {}", chunks_.end->signal) : "exit");
    if (chunks_.end->dropped_events > 0) {
      d.AddCount(Diag::kDroppedEvents, chunks_.end->dropped_events,
                 fmt::format("{}: the recording runtime could not record {} event(s)", file_, chunks_.end->dropped_events));
    }
  } else {
    builder_.AddMetadata(metadata::kDroppedEvents, "unknown");
    builder_.AddMetadata(metadata::kEnd, "missing");
    d.Add(Diag::kTraceNotFinished, fmt::format("{}: trace not closed: no end-of-trace chunk (the recording process was "
                                            "killed, e.g. by SIGKILL, before it finished the trace, or it is still "
                                            "running); each thread's events after its last written block are lost and "
                                            "the number of dropped events is unknown", file_));
  }
  if (chunks_.skipped_chunks > 0) d.AddCount(Diag::kSkippedChunks, chunks_.skipped_chunks, chunks_.first_skipped_chunk);
  if (skipped_records_ > 0) d.AddCount(Diag::kSkippedRecords, skipped_records_, first_skipped_record_);
  if (!chunks_.truncated.empty()) d.Add(Diag::kFileTruncated, chunks_.truncated + TruncatedLocation());
  if (chunks_.damaged_chunks > 0) d.AddCount(Diag::kDamagedChunks, chunks_.damaged_chunks, chunks_.first_damaged_chunk);
  if (missing_blocks_ > 0) d.AddCount(Diag::kMissingBlocks, missing_blocks_, first_missing_);
  if (damaged_blocks_ > 0) d.AddCount(Diag::kDamagedBlocks, damaged_blocks_, first_damaged_block_);
  if (lost_records_ > 0 || lost_blocks_ > 0) d.AddCount(Diag::kRecordsNotAnalysed, lost_records_, first_lost_);
  if (backwards_ > 0) d.AddCount(Diag::kTimeWentBackwards, backwards_, first_backwards_);
  if (unclosed_ > 0) d.AddCount(Diag::kUnclosedRegions, unclosed_, first_unclosed_);
  if (grain_end_mismatches_ > 0) d.AddCount(Diag::kGrainEndMismatch, grain_end_mismatches_, first_grain_end_mismatch_);
  unmatched_.Report(d);
  if (shared_processors_ > 0) {
    d.AddCount(Diag::kSharedProcessorIds, shared_processors_,
               fmt::format("{}: {} thread(s) recorded a seed processor id that is not theirs alone; they are "
                           "reported as threads", file_, shared_processors_));
  }
}

}  // namespace gst_reader

Result<Trace> ReadGst(std::span<const unsigned char> bytes, std::string_view file_name, bool derive_thread_sync) {
  GS_ASSIGN_OR_RETURN(Chunks chunks, gst::ParseChunks(bytes, file_name));
  return gst_reader::GstTraceBuilder(std::move(chunks), file_name, derive_thread_sync).Run();
}

Result<Trace> ReadGstFile(const std::string& path, bool derive_thread_sync) {
  MappedFile file;
  GS_RETURN_IF_ERROR(file.Open(path));
  return ReadGst(file.bytes(), path, derive_thread_sync);
}

Result<Trace> gst::ReadGstFileAsPart(const std::string& path, MpiLabelTranslator& mpi) {
  MappedFile file;
  GS_RETURN_IF_ERROR(file.Open(path));
  GS_ASSIGN_OR_RETURN(Chunks chunks, gst::ParseChunks(file.bytes(), path));
  return gst_reader::GstTraceBuilder(std::move(chunks), path, &mpi).Run();
}

bool LooksLikeGst(std::string_view head) {
  return head.size() >= sizeof gst::kMagic && std::memcmp(head.data(), gst::kMagic, sizeof gst::kMagic) == 0;
}

namespace {
// A directory of rank files, a *.gst name (a damaged magic number then gets this reader's error, not
// the text readers'), or the magic number. A pipe's bytes only tell that it holds one.
Sniff SniffGst(const TraceProbe& probe) {
  if (probe.stream) return LooksLikeGst(probe.head) ? Sniff::kSure : Sniff::kNo;
  if (LooksLikeGstDirectory(probe.path)) return Sniff::kSure;
  const bool named_gst = std::filesystem::path(probe.path).extension() == ".gst";
  return named_gst || LooksLikeGst(probe.head) ? Sniff::kSure : Sniff::kNo;
}

// `options`: how many threads read a rank directory's files. The .gst readers repair (and count)
// what they meet themselves and hand the builder properly nested events, so --strict changes
// nothing here yet.
Result<Trace> ReadGstPath(const std::string& path, const ReadOptions& options) {
  return LooksLikeGstDirectory(path) ? ReadGstDirectory(path, options) : ReadGstFile(path);
}
}  // namespace

constinit const Importer kGstImporter{kGstFormat, SniffGst, ReadGstPath, nullptr, ".gst", ".gst"};

}  // namespace grainscope
