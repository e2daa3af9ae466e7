#include "format/gst/gst_reader.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "base/progress.h"
#include "format/gst/gst_chunks.h"
#include "format/gst/gst_dir_reader.h"
#include "format/gst/gst_format.h"
#include "format/limits.h"
#include "model/message_matcher.h"
#include "model/metadata_keys.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

using gst::Chunks;
using gst::ClockSample;

// A read-only mapping of a whole file, unmapped on destruction.
class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (data_ != nullptr) munmap(data_, size_);
  }

  Status Open(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
    struct stat st {};
    if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
      close(fd);
      return IoError(fmt::format("{}: is not a regular file", path));
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        const int saved = errno;
        close(fd);
        return IoError(fmt::format("{}: cannot map: {}", path, std::strerror(saved)));
      }
      data_ = p;
      madvise(data_, size_, MADV_SEQUENTIAL);
    }
    close(fd);
    return OkStatus();
  }

  std::span<const unsigned char> bytes() const { return {static_cast<const unsigned char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

// Raw clock values to ns since the first clock sample: the line through the first sample and the
// sample furthest from it in raw value (a fit over the whole run), or the first sample's nominal
// rate when the run was too short (< 1 ms) or the samples are missing.
class ClockConverter {
 public:
  static Result<ClockConverter> Make(const std::vector<ClockSample>& samples, std::string_view file) {
    if (samples.empty()) {
      return DataLoss(fmt::format("{}: no clock chunk: the raw timestamps cannot be converted to time (the "
                                  "runtime writes one before any event)", file));
    }
    ClockConverter c;
    c.first_ = samples.front();
    c.tsc_ = c.first_.clock == gst::kClockTsc;
    const ClockSample* last = &samples.front();
    for (const ClockSample& s : samples) {
      // Keeps every difference of readings representable (found by fuzz_gst: a hostile sample
      // made span_ns overflow).
      if (s.monotonic_ns < 0 || s.monotonic_ns > limits::kMaxTimeNs) {
        return DataLoss(fmt::format("{}: clock sample {}: CLOCK_MONOTONIC reading {} ns is outside the limits 0 .. kMaxTimeNs = {}",
                                    file, &s - samples.data(), s.monotonic_ns, limits::kMaxTimeNs));
      }
      if (s.clock != c.first_.clock)
        return DataLoss(fmt::format("{}: clock samples disagree about the clock kind ({} and {})", file, c.first_.clock, s.clock));
      if (s.raw > last->raw) last = &s;
    }
    if (!c.tsc_) return c;
    const int64_t span_ns = last->monotonic_ns - c.first_.monotonic_ns;
    if (span_ns >= 1'000'000 && last->raw > c.first_.raw) {
      c.fit_ = true;
      c.span_raw_ = last->raw - c.first_.raw;
      c.span_ns_ = span_ns;
      c.ticks_per_ns_ = static_cast<double>(c.span_raw_) / static_cast<double>(span_ns);
    } else {
      c.ticks_per_ns_ = c.first_.nominal_ticks_per_ns;
      if (!(c.ticks_per_ns_ > 0) || !std::isfinite(c.ticks_per_ns_))
        return DataLoss(fmt::format("{}: the clock sample has no usable TSC rate ({})", file, c.ticks_per_ns_));
    }
    return c;
  }

  // Saturates at +-INT64_MAX, which the caller rejects as beyond kMaxTimeNs.
  TimeNs ToNs(uint64_t raw) const {
    const auto delta = static_cast<int64_t>(raw - first_.raw);
    if (!tsc_) return delta;
    constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
    if (fit_) {
      const __int128 ns = static_cast<__int128>(delta) * span_ns_ / static_cast<__int128>(span_raw_);
      return ns > kMax ? kMax : ns < -kMax ? -kMax : static_cast<TimeNs>(ns);
    }
    const double ns = static_cast<double>(delta) / ticks_per_ns_;
    if (!(std::fabs(ns) < 9e18)) return ns > 0 ? kMax : -kMax;
    return static_cast<TimeNs>(std::llround(ns));
  }

  bool tsc() const { return tsc_; }
  double ticks_per_ns() const { return ticks_per_ns_; }

 private:
  ClockSample first_{};
  bool tsc_ = false;
  bool fit_ = false;
  uint64_t span_raw_ = 1;
  int64_t span_ns_ = 1;
  double ticks_per_ns_ = 1.0;
};

// One decoded record of a stream.
struct Event {
  TimeNs time;
  uint8_t kind;
  uint32_t id;
  uint64_t bytes = 0;
  int32_t peer = gst::kNoPeer;
  uint32_t grain = gst::kNoRegion;
  uint32_t block;  // index into the stream's sorted blocks, for messages
  uint32_t index;  // record index in that block
  TimeNs end_time = 0;  // send begin: the time of its send end (FIFO order of completion)
  int64_t grain_id = 0;  // grain begin/end: the grain id (the site is `id`)
};

struct Stream {
  uint32_t id;
  gst::StreamChunks* chunks;
  std::vector<Event> events;
  std::set<int64_t> processors;
  LocationId location;
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

  Result<Trace> Run() {
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
    AddLocations();
    AddRegions();
    MatchMessages();
    for (Stream& s : streams_) AppendEvents(s);
    AddMetadataAndDiagnostics();
    builder_.SetEagerLimitIfRecorded();  // a converted MPI trace: its rendezvous sends
    return builder_.Finish();
  }

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

  // Orders the stream's blocks, decodes their records and checks that every id is defined.
  Status Decode(Stream& s) {
    auto& blocks = s.chunks->blocks;
    std::stable_sort(blocks.begin(), blocks.end(),
                     [](const gst::EventBlock& a, const gst::EventBlock& b) { return a.sequence < b.sequence; });
    for (size_t b = 0; b < blocks.size(); ++b) {
      if (b > 0 && blocks[b].sequence == blocks[b - 1].sequence) {
        return DataLoss(fmt::format("{}: byte {}: stream {} has two event blocks with sequence number {} (the "
                                    "other at byte {})", file_, blocks[b].chunk_offset, s.id, blocks[b].sequence,
                                    blocks[b - 1].chunk_offset));
      }
      const uint32_t expected = b == 0 ? 0 : blocks[b - 1].sequence + 1;
      if (blocks[b].sequence != expected || blocks[b].damaged) {
        EndStreamAt(s, b, expected);
        break;
      }
      GS_RETURN_IF_ERROR(DecodeBlock(s, static_cast<uint32_t>(b)));
      progress::Advance(blocks[b].chunk_offset);
    }
    return OkStatus();
  }

  // A stream's block `b` is damaged, or blocks before it are missing: the events after the gap
  // cannot be trusted to nest with those before it, so the stream ends at its last intact block
  // (what was open then is closed at its last event, see CheckNesting) and what follows is counted.
  void EndStreamAt(Stream& s, size_t b, uint32_t expected) {
    auto& blocks = s.chunks->blocks;
    const gst::EventBlock& first = blocks[b];
    uint64_t records = 0;
    for (size_t k = b; k < blocks.size(); ++k) records += blocks[k].raw_size / sizeof(gst::Record);
    std::string why;
    if (first.sequence != expected) {
      missing_blocks_ += first.sequence - expected;
      why = first.sequence - expected > 1
                ? fmt::format("event blocks {} to {} of stream {} are missing", expected, first.sequence - 1, s.id)
                : fmt::format("event block {} of stream {} is missing", expected, s.id);
      if (first_missing_.empty()) first_missing_ = fmt::format("{}: {}", file_, why);
    } else {
      ++damaged_blocks_;
      why = fmt::format("event block {} of stream {} is damaged ({})", first.sequence, s.id, first.damage);
      if (first_damaged_block_.empty()) first_damaged_block_ = fmt::format("{}: {}", file_, why);
    }
    lost_blocks_ += blocks.size() - b;
    lost_records_ += records;
    if (first_lost_.empty()) {
      first_lost_ = fmt::format("{}: {}; {} block(s) of the stream from byte {} ({} records) are not analysed: the "
                                "stream ends at its last intact block before them", file_, why, blocks.size() - b,
                                first.chunk_offset, records);
    }
  }

  Status DecodeBlock(Stream& s, uint32_t b) {
    const gst::EventBlock& block = s.chunks->blocks[b];
    const size_t count = block.records.size() / sizeof(gst::Record);
    const unsigned char* base = block.records.data();
    uint32_t last_region = UINT32_MAX;  // regions repeat: look each up once per run of them
    for (size_t i = 0; i < count; ++i) {
      const auto r = gst::Load<gst::Record>(base + i * sizeof(gst::Record));
      Event e{0, r.kind, r.id, 0, gst::kNoPeer, gst::kNoRegion, b, static_cast<uint32_t>(i)};
      if (r.extra >= count - i) {
        return ErrorAt(s, e, "record of kind {} claims {} continuation slots, only {} remain in its block", r.kind,
                       r.extra, count - i - 1);
      }
      const size_t first_extra = i + 1;
      i += r.extra;
      if (r.kind == 0 || r.kind > gst::kLastKnownRecordKind) {
        if (skipped_records_++ == 0)
          first_skipped_record_ = fmt::format("{}: {}: record of unknown kind {} skipped", file_, block.Where(e.index), r.kind);
        continue;
      }
      e.time = clock_.ToNs(r.time);
      if (e.time > limits::kMaxTimeNs || e.time < -limits::kMaxTimeNs) {
        return ErrorAt(s, e, "record time {} ns from the start of recording exceeds the limit kMaxTimeNs = {}", e.time,
                       limits::kMaxTimeNs);
      }
      if (!s.events.empty() && e.time < s.events.back().time) {
        if (backwards_++ == 0) {
          first_backwards_ = fmt::format("{}: {}: stream {}: time goes back by {} ns; clamped", file_,
                                         block.Where(e.index), s.id, s.events.back().time - e.time);
        }
        e.time = s.events.back().time;
      }
      const bool has_message_slot = r.kind == gst::kRecordSendBegin || r.kind == gst::kRecordRecvEnd;
      if (has_message_slot) {
        if (r.extra < 1) return ErrorAt(s, e, "{} record without its message slot", KindName(r.kind));
        const auto m = gst::Load<gst::MessageSlot>(base + first_extra * sizeof(gst::Record));
        e.bytes = m.bytes;
        e.peer = m.peer;
        e.grain = m.grain;
        if (e.grain != gst::kNoRegion && !chunks_.regions.count(e.grain))
          return ErrorAt(s, e, "message names grain region {}, which has no definition", e.grain);
        if (e.grain != gst::kNoRegion) plain_regions_.insert(e.grain);
      }
      if (r.kind == gst::kRecordSync) {
        if (r.extra < 1) return ErrorAt(s, e, "sync record without its sync slot");
        if (r.reserved == 0 || r.reserved > kLastSyncKind) {  // a later version's kind of sync
          if (skipped_records_++ == 0)
            first_skipped_record_ = fmt::format("{}: {}: sync record of unknown kind {} skipped", file_, block.Where(e.index), r.reserved);
          continue;
        }
        e.bytes = gst::Load<gst::SyncSlot>(base + first_extra * sizeof(gst::Record)).object;  // the object
        e.peer = r.reserved;                                                                   // its SyncKind
      }
      if (r.kind == gst::kRecordGrainBegin || r.kind == gst::kRecordGrainEnd) {
        if (r.extra == 0) {  // packed: the site in `reserved`, the grain id in `id`
          e.id = r.reserved;
          e.grain_id = r.id;
        } else {
          e.grain_id = gst::Load<gst::GrainSlot>(base + first_extra * sizeof(gst::Record)).grain;
        }
      }
      switch (r.kind) {
        case gst::kRecordRegionBegin:
        case gst::kRecordRegionEnd:
          if (r.id == last_region) break;
          if (!chunks_.regions.count(r.id)) return ErrorAt(s, e, "{} of region {}, which has no definition", KindName(r.kind), r.id);
          plain_regions_.insert(r.id);
          last_region = r.id;
          break;
        case gst::kRecordGrainBegin:
        case gst::kRecordGrainEnd:
          if (!chunks_.regions.count(e.id))
            return ErrorAt(s, e, "{} of grain {} at site region {}, which has no definition", KindName(r.kind), e.grain_id, e.id);
          if (r.kind == gst::kRecordGrainBegin) grains_.emplace(std::make_pair(e.id, e.grain_id), RegionId());
          break;
        case gst::kRecordSendBegin:
        case gst::kRecordSendEnd:
        case gst::kRecordRecvBegin:
        case gst::kRecordRecvEnd:
        case gst::kRecordMarker:
          if (!chunks_.strings.count(r.id)) return ErrorAt(s, e, "{} names string {}, which has no definition", KindName(r.kind), r.id);
          break;
        case gst::kRecordProcessor:
          s.processors.insert(static_cast<int32_t>(r.id));
          break;
        case gst::kRecordOrigin:
          if (!origin_ || e.time < *origin_) origin_ = e.time;
          break;
        default:
          break;
      }
      s.events.push_back(e);
    }
    return OkStatus();
  }

  // Time zero without an origin record: the program's first event (over all threads), not the
  // first clock sample. The runtime samples the clock when it opens the trace, before its
  // start-up work (clock choice, overhead calibration, the first thread's buffer), which took
  // 2.5-20 ms and was counted as idle time of every processor: a serial program reported speedup
  // 0.73. Processor and origin records are not events; a trace without events starts at 0.
  std::optional<TimeNs> FirstEventTime() const {
    std::optional<TimeNs> first;
    for (const Stream& s : streams_) {
      for (const Event& e : s.events) {
        if (e.kind == gst::kRecordProcessor || e.kind == gst::kRecordOrigin) continue;
        if (!first || e.time < *first) first = e.time;
        break;  // a stream's times never decrease
      }
    }
    return first;
  }

  static std::string_view KindName(uint8_t kind) {
    switch (kind) {
      case gst::kRecordRegionBegin: return "region begin";
      case gst::kRecordRegionEnd: return "region end";
      case gst::kRecordGrainBegin: return "grain begin";
      case gst::kRecordGrainEnd: return "grain end";
      case gst::kRecordSendBegin: return "send begin";
      case gst::kRecordSendEnd: return "send end";
      case gst::kRecordRecvBegin: return "receive begin";
      case gst::kRecordRecvEnd: return "receive end";
      case gst::kRecordMarker: return "marker";
      case gst::kRecordSync: return "sync";
      default: return "record";
    }
  }

  static bool IsRegionBegin(uint8_t kind) { return kind == gst::kRecordRegionBegin || kind == gst::kRecordGrainBegin; }

  // "region 'merge'", "grain 'task' 17", "message 'result'": what a begin or end names.
  std::string What(const Event& e) const {
    if (e.kind == gst::kRecordGrainBegin || e.kind == gst::kRecordGrainEnd)
      return fmt::format("grain '{}' {}", RegionName(e.id), e.grain_id);
    if (e.kind == gst::kRecordRegionBegin || e.kind == gst::kRecordRegionEnd) return fmt::format("region '{}'", RegionName(e.id));
    return fmt::format("message '{}'", StringText(e.id));
  }

  // Regions, sends and receives must nest on each stream. What is still open at the end of a
  // stream (the run died inside it) is closed at the stream's last event, and counted. A region
  // or grain begin is closed by the next end of the same region (site), of either kind: the end
  // takes the begin's kind and grain id, and a grain end naming another id is counted.
  Status CheckNesting(Stream& s) {
    std::vector<uint32_t> open;  // events
    for (uint32_t i = 0; i < s.events.size(); ++i) {
      Event& e = s.events[i];
      uint8_t opener = 0;
      switch (e.kind) {
        case gst::kRecordRegionBegin:
        case gst::kRecordGrainBegin:
        case gst::kRecordSendBegin:
        case gst::kRecordRecvBegin:
          open.push_back(i);
          continue;
        case gst::kRecordRegionEnd:
        case gst::kRecordGrainEnd: opener = gst::kRecordRegionBegin; break;
        case gst::kRecordSendEnd: opener = gst::kRecordSendBegin; break;
        case gst::kRecordRecvEnd: opener = gst::kRecordRecvBegin; break;
        default: continue;
      }
      if (open.empty())
        return ErrorAt(s, e, "{} of {} but nothing is open on this thread", KindName(e.kind), What(e));
      const Event& top = s.events[open.back()];
      const bool kind_matches = opener == gst::kRecordRegionBegin ? IsRegionBegin(top.kind) : top.kind == opener;
      if (!kind_matches || top.id != e.id) {
        return ErrorAt(s, e, "{} of {} but the innermost open one is the {} of {} at {}: begins and ends must nest",
                       KindName(e.kind), What(e), KindName(top.kind), What(top), s.chunks->blocks[top.block].Where(top.index));
      }
      if (opener == gst::kRecordRegionBegin) {
        if (e.kind == gst::kRecordGrainEnd && top.kind == gst::kRecordGrainBegin && e.grain_id != top.grain_id &&
            grain_end_mismatches_++ == 0) {
          first_grain_end_mismatch_ = fmt::format("{}: {} (stream {}): grain end of '{}' {} closes grain {} (begun at {}); "
                                                  "the begin's id is kept", file_, s.chunks->blocks[e.block].Where(e.index),
                                                  s.id, RegionName(e.id), e.grain_id, top.grain_id,
                                                  s.chunks->blocks[top.block].Where(top.index));
        }
        e.kind = top.kind == gst::kRecordGrainBegin ? gst::kRecordGrainEnd : gst::kRecordRegionEnd;
        e.grain_id = top.grain_id;
      }
      if (e.kind == gst::kRecordSendEnd) s.events[open.back()].end_time = e.time;
      open.pop_back();
    }
    const TimeNs last = s.events.empty() ? 0 : s.events.back().time;
    while (!open.empty()) {
      const uint32_t o = open.back();
      open.pop_back();
      const Event begin = s.events[o];
      if (unclosed_++ == 0) {
        first_unclosed_ = fmt::format("{}: {}: stream {}: the {} of {} is never ended (the run stopped inside it); "
                                      "closed at the stream's last event", file_, s.chunks->blocks[begin.block].Where(begin.index),
                                      s.id, KindName(begin.kind), What(begin));
      }
      Event end{last, 0, begin.id, 0, gst::kNoPeer, gst::kNoRegion, 0, 0};
      end.grain_id = begin.grain_id;
      if (begin.kind == gst::kRecordRegionBegin) end.kind = gst::kRecordRegionEnd;
      if (begin.kind == gst::kRecordGrainBegin) end.kind = gst::kRecordGrainEnd;
      if (begin.kind == gst::kRecordSendBegin) {
        end.kind = gst::kRecordSendEnd;
        s.events[o].end_time = last;
      }
      if (begin.kind == gst::kRecordRecvBegin) end.kind = kSyntheticRecvClose;
      s.events.push_back(end);
    }
    return OkStatus();
  }

  // Threads that recorded exactly one seed processor id, used by no other thread, become
  // "processor <id>"; the others are threads. Processors come first, by id; then threads, in
  // the order they started recording, numbered after the largest processor id (from 0 when
  // there is none): a thread the program did not number must not share an id with a processor
  // it did (a producer thread that only sends was "thread 0" beside "processor 0").
  void AddLocations() {
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

  // One region per definition, except grain sites only used with per-instance ids; then one per
  // (site, grain id), in that order: the site's name and role, the grain id as external id.
  void AddRegions() {
    std::set<uint32_t> sites;
    for (const auto& [key, region] : grains_) sites.insert(key.first);
    auto role_of = [](const gst::RegionDefinition& def) {
      if (def.role == gst::kRoleGrain) return RegionRole::kGrain;
      if (def.role == gst::kRoleCommunication) return RegionRole::kPointToPoint;
      if (def.role == gst::kRoleOther) return RegionRole::kOther;
      return RegionRole::kFunction;
    };
    for (const auto& [id, def] : chunks_.regions) {
      if (sites.count(id) && !plain_regions_.count(id)) continue;
      regions_[id] = builder_.AddRegion(def.name, role_of(def), def.external_id == gst::kNoExternalId ? id : def.external_id);
    }
    for (auto& [key, region] : grains_) {
      const auto& def = chunks_.regions.at(key.first);
      region = builder_.AddRegion(def.name, role_of(def), key.second);
    }
    send_region_ = builder_.AddRegion("send", RegionRole::kPointToPoint, -1);
    recv_region_ = builder_.AddRegion("receive", RegionRole::kPointToPoint, -1);
  }

  // FIFO per name, in order of completion (see gst_reader.h).
  void MatchMessages() {
    ChannelIds<uint32_t> names;  // string id -> channel
    FifoMessageMatcher<MessageEnd> matcher;
    for (uint32_t si = 0; si < streams_.size(); ++si) {
      const Stream& s = streams_[si];
      for (uint32_t i = 0; i < s.events.size(); ++i) {
        const Event& e = s.events[i];
        if (e.kind == gst::kRecordSendBegin) matcher.AddSend(names.Id(e.id), {e.end_time, si, i});
        if (e.kind == gst::kRecordRecvEnd) matcher.AddReceive(names.Id(e.id), {e.time, si, i});
      }
    }
    matcher.Group();
    auto by_completion = [this](const MessageEnd& a, const MessageEnd& b) {
      if (a.order_time != b.order_time) return a.order_time < b.order_time;
      if (streams_[a.stream].id != streams_[b.stream].id) return streams_[a.stream].id < streams_[b.stream].id;
      return a.event < b.event;
    };
    for (uint32_t c = 0; c < matcher.channel_count(); ++c) {
      std::sort(matcher.sends(c).begin(), matcher.sends(c).end(), by_completion);
      std::sort(matcher.receives(c).begin(), matcher.receives(c).end(), by_completion);
    }
    struct Pair {
      TimeNs time;
      uint32_t stream_id;
      uint32_t event;
      const MessageEnd* send;
      const MessageEnd* recv;
    };
    std::vector<Pair> pairs;
    matcher.MatchAll([&](uint32_t, const MessageEnd* send, const MessageEnd* recv) {
      const MessageEnd& any = send != nullptr ? *send : *recv;
      const Event& e = streams_[any.stream].events[any.event];
      pairs.push_back({e.time, streams_[any.stream].id, any.event, send, recv});
    });
    // Message ids in order of the send (or, unsent, the receive), ties by stream and position.
    std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
      if (a.time != b.time) return a.time < b.time;
      if (a.stream_id != b.stream_id) return a.stream_id < b.stream_id;
      return a.event < b.event;
    });
    for (const Pair& p : pairs) {
      MessageInfo info;
      const Event* send = p.send ? &streams_[p.send->stream].events[p.send->event] : nullptr;
      const Event* recv = p.recv ? &streams_[p.recv->stream].events[p.recv->event] : nullptr;
      const Event& any = send ? *send : *recv;
      const std::string name = StringText(any.id);
      info.name = name;
      if (send) {
        info.sender = streams_[p.send->stream].location;
        info.bytes = send->bytes;
        if (send->grain != gst::kNoRegion) info.send_grain = regions_.at(send->grain);
      }
      if (recv) {
        info.receiver = streams_[p.recv->stream].location;
        if (info.bytes == 0) info.bytes = recv->bytes;
        if (recv->grain != gst::kNoRegion) info.recv_grain = regions_.at(recv->grain);
      }
      const MessageId m = builder_.AddMessage(info);
      if (send) message_of_[{p.send->stream, p.send->event}] = m;
      if (recv) message_of_[{p.recv->stream, p.recv->event}] = m;
      if (!send && unsent_++ == 0) first_unsent_ = fmt::format("{}: message '{}' is received but never sent", file_, name);
      if (!recv && unreceived_++ == 0) first_unreceived_ = fmt::format("{}: message '{}' is sent but never received", file_, name);
    }
  }

  void AppendEvents(const Stream& s) {
    const LocationId loc = s.location;
    builder_.Reserve(loc, s.events.size() + s.events.size() / 4);
    for (uint32_t i = 0; i < s.events.size(); ++i) {
      const Event& e = s.events[i];
      const uint32_t si = static_cast<uint32_t>(&s - streams_.data());
      switch (e.kind) {
        case gst::kRecordRegionBegin: builder_.Enter(loc, e.time, regions_.at(e.id)); break;
        case gst::kRecordRegionEnd: builder_.Leave(loc, e.time, regions_.at(e.id)); break;
        case gst::kRecordGrainBegin: builder_.Enter(loc, e.time, grains_.at({e.id, e.grain_id})); break;
        case gst::kRecordGrainEnd: builder_.Leave(loc, e.time, grains_.at({e.id, e.grain_id})); break;
        case gst::kRecordSendBegin:
          builder_.Enter(loc, e.time, send_region_);
          builder_.Send(loc, e.time, message_of_.at({si, i}));
          break;
        case gst::kRecordSendEnd: builder_.Leave(loc, e.time, send_region_); break;
        case gst::kRecordRecvBegin: builder_.Enter(loc, e.time, recv_region_); break;
        case gst::kRecordRecvEnd:
          builder_.Recv(loc, e.time, message_of_.at({si, i}));
          builder_.Leave(loc, e.time, recv_region_);
          break;
        case kSyntheticRecvClose: builder_.Leave(loc, e.time, recv_region_); break;
        case gst::kRecordMarker: builder_.Marker(loc, e.time, builder_.Intern(StringText(e.id))); break;
        case gst::kRecordSync: builder_.Sync(loc, e.time, static_cast<SyncKind>(e.peer), e.bytes, e.id); break;
        default: break;  // processor and origin records are not events of the model
      }
    }
  }

  void AddMetadataAndDiagnostics() {
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
        d.AddCount("dropped_events", chunks_.end->dropped_events,
                   fmt::format("{}: the recording runtime could not record {} event(s)", file_, chunks_.end->dropped_events));
      }
    } else {
      builder_.AddMetadata(metadata::kDroppedEvents, "unknown");
      builder_.AddMetadata(metadata::kEnd, "missing");
      d.Add("trace_not_finished", fmt::format("{}: trace not closed: no end-of-trace chunk (the recording process was "
                                              "killed, e.g. by SIGKILL, before it finished the trace, or it is still "
                                              "running); each thread's events after its last written block are lost and "
                                              "the number of dropped events is unknown", file_));
    }
    if (chunks_.skipped_chunks > 0) d.AddCount("skipped_chunks", chunks_.skipped_chunks, chunks_.first_skipped_chunk);
    if (skipped_records_ > 0) d.AddCount("skipped_records", skipped_records_, first_skipped_record_);
    if (!chunks_.truncated.empty()) d.Add("file_truncated", chunks_.truncated);
    if (chunks_.damaged_chunks > 0) d.AddCount("damaged_chunks", chunks_.damaged_chunks, chunks_.first_damaged_chunk);
    if (missing_blocks_ > 0) d.AddCount("missing_blocks", missing_blocks_, first_missing_);
    if (damaged_blocks_ > 0) d.AddCount("damaged_blocks", damaged_blocks_, first_damaged_block_);
    if (lost_records_ > 0 || lost_blocks_ > 0) d.AddCount("records_not_analysed", lost_records_, first_lost_);
    if (backwards_ > 0) d.AddCount("time_went_backwards", backwards_, first_backwards_);
    if (unclosed_ > 0) d.AddCount("unclosed_regions", unclosed_, first_unclosed_);
    if (grain_end_mismatches_ > 0) d.AddCount("grain_end_mismatch", grain_end_mismatches_, first_grain_end_mismatch_);
    if (unsent_ > 0) d.AddCount("receives_without_send", unsent_, first_unsent_);
    if (unreceived_ > 0) d.AddCount("sends_without_receive", unreceived_, first_unreceived_);
    if (shared_processors_ > 0) {
      d.AddCount("shared_processor_ids", shared_processors_,
                 fmt::format("{}: {} thread(s) recorded a seed processor id that is not theirs alone; they are "
                             "reported as threads", file_, shared_processors_));
    }
  }

  // Closes a receive that never ended (no message arrives): not a kind in the file.
  static constexpr uint8_t kSyntheticRecvClose = 0xff;

  Chunks chunks_;
  std::string_view file_;
  TraceBuilder builder_;
  ClockConverter clock_;
  std::vector<Stream> streams_;
  std::map<uint32_t, RegionId> regions_;
  // Grains with a per-instance id: (site region, grain id) -> region, filled by AddRegions.
  std::map<std::pair<uint32_t, int64_t>, RegionId> grains_;
  std::set<uint32_t> plain_regions_;  // regions named by region records or message slots
  RegionId send_region_, recv_region_;
  std::map<std::pair<uint32_t, uint32_t>, MessageId> message_of_;  // (stream index, event) -> message
  std::optional<TimeNs> origin_;
  uint64_t skipped_records_ = 0, missing_blocks_ = 0, backwards_ = 0, unclosed_ = 0, unsent_ = 0, unreceived_ = 0;
  uint64_t shared_processors_ = 0;
  uint64_t grain_end_mismatches_ = 0;
  std::string first_grain_end_mismatch_;
  uint64_t damaged_blocks_ = 0, lost_blocks_ = 0, lost_records_ = 0;
  std::string first_damaged_block_, first_lost_;
  std::string first_skipped_record_, first_missing_, first_backwards_, first_unclosed_, first_unsent_, first_unreceived_;
};

}  // namespace

Result<Trace> ReadGst(std::span<const unsigned char> bytes, std::string_view file_name, bool derive_thread_sync) {
  GS_ASSIGN_OR_RETURN(Chunks chunks, gst::ParseChunks(bytes, file_name));
  return GstTraceBuilder(std::move(chunks), file_name, derive_thread_sync).Run();
}

Result<Trace> ReadGstFile(const std::string& path, bool derive_thread_sync) {
  MappedFile file;
  GS_RETURN_IF_ERROR(file.Open(path));
  return ReadGst(file.bytes(), path, derive_thread_sync);
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

// `options`: the .gst readers repair (and count) what they meet themselves and hand the builder
// properly nested events, so --strict changes nothing here yet.
Result<Trace> ReadGstPath(const std::string& path, const ReadOptions&) {
  return LooksLikeGstDirectory(path) ? ReadGstDirectory(path) : ReadGstFile(path);
}
}  // namespace

constinit const Importer kGstImporter{kGstFormat, SniffGst, ReadGstPath, nullptr, ".gst", ".gst"};

}  // namespace grainscope
