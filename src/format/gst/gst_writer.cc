#include "format/gst/gst_writer.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <initializer_list>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "base/file.h"
#include "format/format_names.h"
#include "format/gst/gst_format.h"
#include "format/gst/gst_model_numbers.h"
#include "format/gst/gst_mpi_labels.h"
#include "model/metadata_keys.h"
#include "model/thread_sync.h"

namespace grainscope {
namespace {

namespace g = gst;

// Records per event block, as the recording runtime writes them (src/record/stream.h).
constexpr size_t kBlockRecords = 4096;

template <typename T>
std::string_view BytesOf(const T& value) {
  return {reinterpret_cast<const char*>(&value), sizeof value};
}

// One .gst file being built in memory: header, definitions, per-stream event blocks, end chunk.
class GstImage {
 public:
  // `zero_raw`: the raw clock value of trace time 0 (>= 0, so no written time is negative).
  GstImage(uint32_t streams, uint64_t zero_raw) : streams_(streams) {
    const g::FileHeader h = g::CurrentFileHeader();
    bytes_.append(BytesOf(h));
    const g::ClockSample clock{g::kClockMonotonic, 0, zero_raw, static_cast<int64_t>(zero_raw), 1.0};
    Chunk(g::kChunkClock, BytesOf(clock));
  }

  void Chunk(uint32_t type, std::string_view payload, uint32_t stream = 0, uint32_t sequence = 0) {
    const auto size = static_cast<uint32_t>(payload.size());
    g::ChunkHeader h{type, 0, size, size, stream, sequence};
    g::SealChunkHeader(h, payload.data());
    bytes_.append(BytesOf(h));
    bytes_.append(payload);
  }

  // The framing of one event block: the only place that writes one (checksums: Chunk).
  void EventBlock(uint32_t stream, uint32_t sequence, std::span<const g::Record> records) {
    Chunk(g::kChunkEventBlock,
          {reinterpret_cast<const char*>(records.data()), records.size_bytes()}, stream, sequence);
  }

  uint32_t String(std::string_view s) {
    auto [it, added] = strings_.try_emplace(std::string(s), static_cast<uint32_t>(strings_.size() + 1));
    if (added) {
      const g::StringDef d{it->second, static_cast<uint32_t>(s.size())};
      Chunk(g::kChunkStringDef, std::string(BytesOf(d)).append(s));
    }
    return it->second;
  }

  void RegionDef(uint32_t id, const Region& region, std::string_view name) {
    const g::RegionDef d{id, g::RoleNumber(region.role), {0, 0, 0}, region.external_id, 0, static_cast<uint32_t>(name.size()), 0, 0};
    Chunk(g::kChunkRegionDef, std::string(BytesOf(d)).append(name));
  }

  void LocationDef(uint32_t stream, std::string_view name) {
    const g::LocationDef d{0, stream, static_cast<uint32_t>(name.size())};
    Chunk(g::kChunkLocationDef, std::string(BytesOf(d)).append(name), stream);
  }

  void Metadata(const std::vector<std::pair<std::string, std::string>>& entries) {
    if (entries.empty()) return;
    std::string payload;
    for (const auto& [key, value] : entries) {
      for (const std::string* s : {&key, &value}) {
        payload.append(BytesOf(static_cast<uint32_t>(s->size())));
        payload.append(*s);
      }
    }
    Chunk(g::kChunkMetadata, payload);
  }

  // Appends a record (and its message slot) to `stream`; a record never straddles two blocks.
  void Record(uint32_t stream, uint64_t raw, uint8_t kind, uint32_t id, const g::MessageSlot* slot = nullptr) {
    Stream& s = streams_[stream];
    if (s.block.size() + (slot ? 2 : 1) > kBlockRecords) Flush(stream);
    s.block.push_back(g::Record{raw, kind, static_cast<uint8_t>(slot ? 1 : 0), 0, id});
    if (slot != nullptr) {
      g::Record r;
      std::memcpy(&r, slot, sizeof r);
      s.block.push_back(r);
    }
  }

  // A record and its continuation slots, in one block.
  void Wide(uint32_t stream, const g::Record& head, std::initializer_list<g::Record> slots) {
    Stream& s = streams_[stream];
    if (s.block.size() + 1 + slots.size() > kBlockRecords) Flush(stream);
    s.block.push_back(head);
    s.block.insert(s.block.end(), slots);
  }
  template <typename T>
  static g::Record Slot(const T& slot) {
    static_assert(sizeof(T) == sizeof(g::Record));
    g::Record r;
    std::memcpy(&r, &slot, sizeof r);
    return r;
  }

  // A grain begin or end with its per-instance id: packed when site and id fit, else with a
  // GrainSlot (gst_format.h).
  void Grain(uint32_t stream, uint64_t raw, uint8_t kind, uint32_t site, int64_t grain) {
    Stream& s = streams_[stream];
    const bool packed = g::FitsPackedGrain(site, grain);
    if (s.block.size() + (packed ? 1 : 2) > kBlockRecords) Flush(stream);
    if (packed) {
      s.block.push_back(g::Record{raw, kind, 0, static_cast<uint16_t>(site), static_cast<uint32_t>(grain)});
      return;
    }
    s.block.push_back(g::Record{raw, kind, 1, 0, site});
    g::Record r;
    const g::GrainSlot slot{grain, 0};
    std::memcpy(&r, &slot, sizeof r);
    s.block.push_back(r);
  }

  // A sync record (kRecordSync and its SyncSlot).
  void Sync(uint32_t stream, uint64_t raw, SyncKind kind, uint64_t object, uint32_t arg) {
    Stream& s = streams_[stream];
    if (s.block.size() + 2 > kBlockRecords) Flush(stream);
    s.block.push_back(g::Record{raw, g::kRecordSync, 1, g::SyncNumber(kind), arg});
    g::Record r;
    const g::SyncSlot slot{object, 0};
    std::memcpy(&r, &slot, sizeof r);
    s.block.push_back(r);
  }

  // An MPI message record (kRecordMpiSend, kRecordMpiRecv) naming communicator key `comm`.
  void MpiMessage(uint32_t stream, uint64_t raw, uint8_t kind, uint32_t comm, const g::MpiMessageSlot& slot) {
    Wide(stream, g::Record{raw, kind, 1, 0, comm}, {Slot(slot)});
  }
  void MpiCollective(uint32_t stream, uint64_t raw, uint16_t op, uint32_t comm, const g::MpiCollSizes& sizes,
                     const g::MpiCollRoot& root) {
    Wide(stream, g::Record{raw, g::kRecordMpiCollective, 2, op, comm}, {Slot(sizes), Slot(root)});
  }

  // Flushes every stream's last block and ends the file.
  std::string& Finish() {
    for (uint32_t s = 0; s < streams_.size(); ++s) Flush(s);
    const g::EndOfTrace end{0, g::kEndExit, 0, static_cast<uint32_t>(streams_.size()), 0};
    Chunk(g::kChunkEnd, BytesOf(end));
    return bytes_;
  }

 private:
  struct Stream {
    std::vector<g::Record> block;
    uint32_t sequence = 0;
  };
  void Flush(uint32_t stream) {
    Stream& s = streams_[stream];
    if (s.block.empty()) return;
    EventBlock(stream, s.sequence++, s.block);
    s.block.clear();
  }

  std::string bytes_;
  std::unordered_map<std::string, uint32_t> strings_;
  std::vector<Stream> streams_;
};

bool IsHelper(const Trace& t, uint32_t region, std::string_view name) {
  const Region& r = t.regions()[region];
  return r.role == RegionRole::kPointToPoint && r.external_id == -1 && t.str(r.name) == name;
}


// Metadata the readers add themselves; written back they would appear twice.
bool ReaderMadeKey(std::string_view key) {
  namespace m = metadata;
  return key == m::kGstVersion || key == m::kDroppedEvents || key == m::kEnd || key == m::kClockOriginMonotonicNs ||
         key == m::kMpiRanks || key == m::kGstOmittedEvents || key.starts_with(m::kRankPrefix);
}

// The object of a thread barrier's instance c (model/thread_sync.h), or nullopt for another
// collective.
std::optional<uint64_t> ThreadBarrierOf(const Trace& t, uint32_t c) {
  const CommunicatorId comm = t.collectives().communicator[c];
  if (!comm.valid()) return std::nullopt;
  return ThreadBarrierObject(t.str(t.communicators()[comm.value].name));
}

uint64_t OmittedEvents(const Trace& t, bool rank_directory) {
  uint64_t n = 0;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    for (size_t i = 0; i < ev.size(); ++i) {
      const EventKind k = ev.kind[i];
      const bool coll = k == EventKind::kCollBegin || k == EventKind::kCollEnd;
      n += k == EventKind::kSendComplete || k == EventKind::kRecvPost ||
           (coll && !rank_directory && !ThreadBarrierOf(t, ev.arg[i]));
    }
  }
  return n;
}

// Writes the events of the trace's locations into streams of GstImages. The two shapes differ in
// how a message is named, what its slot's peer is, and whether collectives are markers.
class Encoder {
 public:
  Encoder(const Trace& t, bool rank_directory, std::vector<uint32_t> rank_of_location)
      : t_(t), rank_directory_(rank_directory), rank_(std::move(rank_of_location)) {
    zero_ = std::min({TimeNs{0}, t.start_ns(), t.origin_ns()});
    region_def_.assign(t.regions().size(), 0);
    for (uint32_t r = 0; r < t.regions().size(); ++r) {
      if (!IsHelper(t, r, "send") && !IsHelper(t, r, "receive")) region_def_[r] = r + 1;
    }
    for (uint32_t c = 0; c < t.communicators().size(); ++c) {
      const std::string_view name = t.str(t.communicators()[c].name);
      const bool keyed = name.starts_with("comm ") && name.size() > 5 && name.find_first_of(" \t", 5) == std::string_view::npos;
      if (name == "MPI_COMM_WORLD") {
        comm_id_.emplace_back("w");
      } else {
        comm_id_.push_back(keyed ? std::string(name.substr(5)) : fmt::format("c{}", c));
      }
    }
  }

  uint64_t Raw(TimeNs t) const { return static_cast<uint64_t>(t - zero_); }
  uint64_t ZeroRaw() const { return static_cast<uint64_t>(-zero_); }

  void Definitions(GstImage& img) const {
    for (uint32_t r = 0; r < t_.regions().size(); ++r) {
      if (region_def_[r] != 0) img.RegionDef(region_def_[r], t_.regions()[r], t_.str(t_.regions()[r].name));
    }
  }

  // The "mpi.rank" and "mpi.comm" labels of a rank file, at `time`.
  void RankLabels(GstImage& img, uint32_t stream, uint32_t rank, uint32_t ranks, uint64_t raw) const {
    img.Record(stream, raw, g::kRecordMarker, img.String(fmt::format("mpi.rank {} {}", rank, ranks)));
    for (uint32_t c = 0; c < t_.communicators().size(); ++c) {
      std::string members;
      for (LocationId m : t_.communicators()[c].members) {
        members += fmt::format("{}{}", members.empty() ? "" : ",", rank_[m.value]);
      }
      if (members.empty()) continue;
      img.Record(stream, raw, g::kRecordMarker, img.String(fmt::format("mpi.comm {} {}", comm_id_[c], members)));
    }
  }

  void Events(GstImage& img, uint32_t stream, LocationId l) {
    const EventColumns& ev = t_.events(l);
    struct Open {
      enum { kPlain, kGrain, kSendHelper, kRecvHelper, kDropped } what;
      uint32_t pending;  // send helper: the send's name once sent; receive helper: its message
      int64_t grain = 0;  // kGrain: the instance's id
    };
    std::vector<Open> open;
    std::unordered_map<uint32_t, uint32_t> open_slots;  // non-blocking collective in flight -> its slot
    std::vector<bool> slots_in_use;
    for (size_t i = 0; i < ev.size(); ++i) {
      const uint64_t raw = Raw(ev.time[i]);
      const uint32_t arg = ev.arg[i];
      switch (ev.kind[i]) {
        case EventKind::kEnter:
          if (rank_directory_ && (IsHelper(t_, arg, "send") || IsHelper(t_, arg, "receive"))) {
            open.push_back({Open::kDropped, 0});  // MPI records are the call's, without helpers
          } else if (IsHelper(t_, arg, "send")) {
            open.push_back({Open::kSendHelper, 0});
          } else if (IsHelper(t_, arg, "receive")) {
            const uint32_t m = ReceiveInside(ev, i);
            if (m == kNone) {
              open.push_back({Open::kDropped, 0});
            } else {
              img.Record(stream, raw, g::kRecordRecvBegin, Name(img, m));
              open.push_back({Open::kRecvHelper, m});
            }
          } else if (const std::optional<int64_t> id = t_.InstanceId(l, static_cast<EventIndex>(i))) {
            img.Grain(stream, raw, g::kRecordGrainBegin, region_def_[arg], *id);
            open.push_back({Open::kGrain, 0, *id});
          } else {
            img.Record(stream, raw, g::kRecordRegionBegin, region_def_[arg]);
            open.push_back({Open::kPlain, 0});
          }
          break;
        case EventKind::kLeave: {
          const Open o = open.back();
          open.pop_back();
          if (o.what == Open::kPlain) img.Record(stream, raw, g::kRecordRegionEnd, region_def_[arg]);
          if (o.what == Open::kGrain) img.Grain(stream, raw, g::kRecordGrainEnd, region_def_[arg], o.grain);
          if (o.what == Open::kSendHelper && o.pending != 0) img.Record(stream, raw, g::kRecordSendEnd, o.pending);
          break;
        }
        case EventKind::kSend: {
          if (rank_directory_) {
            MpiMessage(img, stream, raw, g::kRecordMpiSend, arg);
            break;
          }
          const uint32_t name = Name(img, arg);
          const g::MessageSlot slot = Slot(arg, true);
          img.Record(stream, raw, g::kRecordSendBegin, name, &slot);
          if (!open.empty() && open.back().what == Open::kSendHelper && open.back().pending == 0) {
            open.back().pending = name;  // ends with the helper region, as recorded
          } else {
            img.Record(stream, raw, g::kRecordSendEnd, name);
          }
          break;
        }
        case EventKind::kRecv: {
          if (rank_directory_) {
            MpiMessage(img, stream, raw, g::kRecordMpiRecv, arg);
            break;
          }
          const uint32_t name = Name(img, arg);
          const g::MessageSlot slot = Slot(arg, false);
          const bool began = !open.empty() && open.back().what == Open::kRecvHelper && open.back().pending == arg;
          if (began) {
            open.back().what = Open::kDropped;  // its leave is the receive end's
          } else {
            img.Record(stream, raw, g::kRecordRecvBegin, name);
          }
          img.Record(stream, raw, g::kRecordRecvEnd, name, &slot);
          break;
        }
        case EventKind::kSync: {
          const SyncTable& st = t_.syncs();
          img.Sync(stream, raw, st.kind[arg], st.object[arg], st.arg[arg]);
          break;
        }
        case EventKind::kCollBegin:
          if (const std::optional<uint64_t> barrier = ThreadBarrier(arg)) {
            // A thread barrier's instance: the sync events it was made of.
            img.Sync(stream, raw, SyncKind::kBarrierEnter, *barrier, t_.collectives().member_count(CollectiveId(arg)));
          } else if (rank_directory_) {
            // A non-blocking collective (it ends after its call) takes a slot its end names.
            const uint32_t row = MemberRow(arg, l);
            uint32_t slot = 0;
            if (row != kNone && !EndsWithItsCall(ev, static_cast<EventIndex>(i), t_.collectives().member_end[row])) {
              slot = TakeSlot(slots_in_use);
              open_slots[arg] = slot;
            }
            MpiCollective(img, stream, raw, arg, row, slot);
          }
          break;
        case EventKind::kCollEnd:
          if (const std::optional<uint64_t> barrier = ThreadBarrier(arg)) {
            img.Sync(stream, raw, SyncKind::kBarrierLeave, *barrier, 0);
          } else if (auto it = open_slots.find(arg); it != open_slots.end()) {
            img.Record(stream, raw, g::kRecordMpiCollectiveEnd, it->second);
            slots_in_use[it->second - 1] = false;
            open_slots.erase(it);
          }
          break;
        case EventKind::kMarker:
          img.Record(stream, raw, g::kRecordMarker, img.String(t_.str(StringId(arg))));
          break;
        default:
          break;  // request events: counted omissions
      }
    }
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  // The message received inside the receive region entered at event `enter`, or kNone.
  uint32_t ReceiveInside(const EventColumns& ev, size_t enter) const {
    int depth = 0;
    for (size_t j = enter + 1; j < ev.size(); ++j) {
      if (ev.kind[j] == EventKind::kEnter) ++depth;
      if (ev.kind[j] == EventKind::kLeave && depth-- == 0) break;
      if (ev.kind[j] == EventKind::kRecv && depth == 0) return ev.arg[j];
    }
    return kNone;
  }

  // The file shape pairs messages by name (FIFO per name).
  uint32_t Name(GstImage& img, uint32_t m) const {
    const MessageTable& mt = t_.messages();
    const std::string_view name = t_.str(mt.name[m]);
    if (!name.empty()) return img.String(name);
    return img.String(fmt::format("msg {} {} {}", mt.sender[m].value, mt.receiver[m].value, mt.tag[m]));
  }

  // The directory shape: an MPI record naming the communicator's key and the peer's rank.
  void MpiMessage(GstImage& img, uint32_t stream, uint64_t raw, uint8_t kind, uint32_t m) const {
    const MessageTable& mt = t_.messages();
    const LocationId peer = kind == g::kRecordMpiSend ? mt.receiver[m] : mt.sender[m];
    const int32_t p = peer.valid() ? static_cast<int32_t>(rank_[peer.value]) : -1;
    img.MpiMessage(stream, raw, kind, CommKey(img, mt.communicator[m]), {mt.bytes[m], p, mt.tag[m]});
  }

  uint32_t CommKey(GstImage& img, CommunicatorId c) const {
    return img.String(c.valid() ? std::string_view(comm_id_[c.value]) : std::string_view("-"));
  }

  g::MessageSlot Slot(uint32_t m, bool send) const {
    const MessageTable& mt = t_.messages();
    const LocationId peer = send ? mt.receiver[m] : mt.sender[m];
    const RegionId grain = send ? mt.send_grain[m] : mt.recv_grain[m];
    int32_t p = g::kNoPeer;
    if (peer.valid()) p = static_cast<int32_t>(rank_directory_ ? rank_[peer.value] : peer.value);
    return {mt.bytes[m], p, grain.valid() ? region_def_[grain.value] : g::kNoRegion};
  }

  std::optional<uint64_t> ThreadBarrier(uint32_t c) const { return ThreadBarrierOf(t_, c); }

  uint32_t MemberRow(uint32_t c, LocationId l) const { return t_.collectives().member_row(CollectiveId(c), l); }

  // The smallest slot (from 1) not in use, as libgrainscope-mpi numbers them.
  static uint32_t TakeSlot(std::vector<bool>& in_use) {
    size_t s = 0;
    while (s < in_use.size() && in_use[s]) ++s;
    if (s == in_use.size()) in_use.push_back(false);
    in_use[s] = true;
    return static_cast<uint32_t>(s + 1);
  }

  // A collective's begin record: blocking (slot 0) or non-blocking.
  void MpiCollective(GstImage& img, uint32_t stream, uint64_t raw, uint32_t c, uint32_t row, uint32_t slot) const {
    const CollectiveTable& ct = t_.collectives();
    const uint64_t sent = row != kNone ? ct.member_bytes_sent[row] : 0;
    const uint64_t received = row != kNone ? ct.member_bytes_received[row] : 0;
    const int32_t root = ct.root[c].valid() ? static_cast<int32_t>(rank_[ct.root[c].value]) : -1;
    img.MpiCollective(stream, raw, g::MpiCollOpNumber(ct.op[c]), CommKey(img, ct.communicator[c]), {sent, received},
                      {root, slot, 0});
  }

  const Trace& t_;
  bool rank_directory_;
  std::vector<uint32_t> rank_;  // per location: its rank (directory shape) or its index
  TimeNs zero_ = 0;
  std::vector<uint32_t> region_def_;  // per region: its definition id, 0 for the send/receive helpers
  std::vector<std::string> comm_id_;
};

std::vector<std::pair<std::string, std::string>> MetadataToWrite(const Trace& t, uint64_t omitted) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const MetadataEntry& m : t.metadata()) {
    if (!ReaderMadeKey(t.str(m.key))) out.emplace_back(t.str(m.key), t.str(m.value));
  }
  if (omitted > 0) out.emplace_back(metadata::kGstOmittedEvents, std::to_string(omitted));
  return out;
}

// A .gst output: either shape may replace either, when it is ours — a file with the .gst magic, or
// a directory of rank-NNNNN.gst files and nothing else.
bool HasGstMagic(const std::string& file) {
  unsigned char head[sizeof g::kMagic] = {};
  FILE* in = std::fopen(file.c_str(), "rb");
  if (in == nullptr) return false;
  const size_t n = std::fread(head, 1, sizeof head, in);
  std::fclose(in);
  return n == sizeof head && std::memcmp(head, g::kMagic, sizeof head) == 0;
}

bool IsRankFileName(std::string_view name) {
  if (!name.starts_with("rank-") || !name.ends_with(".gst")) return false;
  const std::string_view digits = name.substr(5, name.size() - 9);
  return !digits.empty() && std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

OutputPart GstPart(const std::string& path) { return OutputPart{path, HasGstMagic, IsRankFileName}; }

TimeNs FirstTime(const Trace& t, LocationId l) {
  const EventColumns& ev = t.events(l);
  return ev.size() == 0 ? 0 : ev.time[0];
}

Status WriteGstFile(const Trace& t, const std::string& path, const OutputOptions& options) {
  const auto n = static_cast<uint32_t>(t.locations().size());
  std::vector<uint32_t> index(n);
  for (uint32_t l = 0; l < n; ++l) index[l] = l;
  Encoder enc(t, false, std::move(index));
  // One stream per location, plus one holding only the origin record (not a location).
  GstImage img(n + 1, enc.ZeroRaw());
  img.Metadata(MetadataToWrite(t, OmittedEvents(t, false)));
  enc.Definitions(img);
  for (uint32_t l = 0; l < n; ++l) {
    const Location& loc = t.locations()[l];
    img.LocationDef(l, t.str(loc.name));
    if (loc.kind == LocationKind::kProcessor) {
      img.Record(l, enc.Raw(FirstTime(t, LocationId(l))), g::kRecordProcessor, static_cast<uint32_t>(loc.external_id));
    }
    enc.Events(img, l, LocationId(l));
  }
  // Always: without an origin record a reader puts time zero at the first event, which is not
  // the origin of a trace whose time zero lies before it (the seed's initialize_clock()).
  img.Record(n, enc.Raw(t.origin_ns()), g::kRecordOrigin, 0);
  GS_ASSIGN_OR_RETURN(OutputTarget out, OutputTarget::Claim(std::string(kGstExporter.what), {GstPart(path)}, options));
  GS_RETURN_IF_ERROR(WriteNewFile(out.staged(0), img.Finish()));
  return out.Commit();
}

// Location groups in order of their first location: a rank and the threads grouped with it.
std::vector<std::vector<uint32_t>> RankGroups(const Trace& t, std::vector<uint32_t>& rank_of_location) {
  std::vector<std::vector<uint32_t>> groups;
  std::unordered_map<uint32_t, uint32_t> rank_of_group;
  rank_of_location.assign(t.locations().size(), 0);
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const uint32_t group = t.locations()[l].group;
    auto [it, added] = rank_of_group.try_emplace(group, static_cast<uint32_t>(groups.size()));
    if (added) groups.emplace_back();
    groups[it->second].push_back(l);
    rank_of_location[l] = it->second;
  }
  return groups;
}

Status WriteGstDirectory(const Trace& t, const std::string& dir, const OutputOptions& options) {
  std::vector<uint32_t> rank;
  const std::vector<std::vector<uint32_t>> groups = RankGroups(t, rank);
  Encoder enc(t, true, rank);
  GS_ASSIGN_OR_RETURN(OutputTarget out, OutputTarget::Claim(std::string(kGstExporter.what), {GstPart(dir)}, options));
  const std::string staged = out.staged(0);
  if (::mkdir(staged.c_str(), 0777) != 0) return IoError(fmt::format("{}: cannot create: {}", dir, std::strerror(errno)));
  const uint64_t omitted = OmittedEvents(t, true);
  for (uint32_t r = 0; r < groups.size(); ++r) {
    // Rank 0's file has one stream more, holding only the origin record (not a location): the
    // directory's time zero is the earliest origin of its files (gst_dir_reader.cc).
    const auto streams = static_cast<uint32_t>(groups[r].size());
    GstImage img(streams + (r == 0 ? 1 : 0), enc.ZeroRaw());
    if (r == 0) img.Metadata(MetadataToWrite(t, omitted));
    if (r == 0) img.Record(streams, enc.Raw(t.origin_ns()), g::kRecordOrigin, 0);
    enc.Definitions(img);
    for (uint32_t s = 0; s < groups[r].size(); ++s) {
      const LocationId l(groups[r][s]);
      img.LocationDef(s, t.str(t.location(l).name));
      if (s == 0) enc.RankLabels(img, 0, r, static_cast<uint32_t>(groups.size()), enc.Raw(FirstTime(t, l)));
      enc.Events(img, s, l);
    }
    GS_RETURN_IF_ERROR(WriteNewFile(fmt::format("{}/rank-{:05}.gst", staged, r), img.Finish()));
  }
  return out.Commit();
}

}  // namespace

bool GstNeedsRankDirectory(const Trace& t) {
  // Thread barriers (model/thread_sync.h) are sync records in either shape.
  for (const Communicator& c : t.communicators()) {
    if (!ThreadBarrierObject(t.str(c.name))) return true;
  }
  return std::any_of(t.locations().begin(), t.locations().end(),
                     [](const Location& l) { return l.kind == LocationKind::kRank; });
}

Status WriteGst(const Trace& trace, const std::string& path, const OutputOptions& options) {
  return GstNeedsRankDirectory(trace) ? WriteGstDirectory(trace, path, options) : WriteGstFile(trace, path, options);
}

namespace {
constexpr std::string_view kExtensions[] = {".gst"};
}  // namespace

constinit const Exporter kGstExporter{kGstFormat, kExtensions, WriteGst, "a .gst trace",
                                      "grainscope's own format, a directory of rank files for MPI traces"};

}  // namespace grainscope
