#include "format/gst/gst_dir_reader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "base/progress.h"
#include "format/gst/gst_mpi_labels.h"
#include "format/gst/gst_reader.h"
#include "format/limits.h"
#include "model/collective_matcher.h"
#include "model/thread_sync.h"
#include "model/message_matcher.h"
#include "model/metadata_keys.h"
#include "model/rendezvous.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

struct RankFile {
  std::string path;
  Trace trace;
  int rank = -1;
  bool labelled = false;  // written by libgrainscope-mpi (it has an "mpi.rank" label)
  std::optional<uint64_t> run;  // the run it belongs to, from the label
  bool has_init = false;  // its main location's first region is MPI_Init (or MPI_Init_thread)
  std::optional<gst::MpiClockLabel> init, finalize;
  std::optional<gst::MpiEagerLimitLabel> eager_limit;  // what the MPI library said
  std::optional<int64_t> origin_monotonic_ns;  // CLOCK_MONOTONIC at file time 0
  TimeNs init_time = 0, finalize_time = 0;  // the clock markers' own (file) times
  std::vector<LocationId> merged;           // merged location of each of the file's locations

  // Rank 0's CLOCK_MONOTONIC (ns) at the file time `t`: the local monotonic clock (anchored at the
  // init marker) plus the offset to rank 0, interpolated between init and finalize.
  int64_t Aligned(TimeNs t) const {
    if (!init) return t + origin_monotonic_ns.value_or(0);
    // The file's own clock sample is exact; the marker's reading is a fallback (it may be off
    // by a preemption between the two reads).
    const int64_t base = origin_monotonic_ns.value_or(init->monotonic_ns - init_time);
    int64_t offset = init->offset_ns;
    if (finalize && finalize_time > init_time) {
      const TimeNs c = std::clamp(t, init_time, finalize_time);
      const __int128 span = finalize_time - init_time;
      offset += static_cast<int64_t>(static_cast<__int128>(finalize->offset_ns - init->offset_ns) *
                                     (c - init_time) / span);
    }
    return t + base + offset;
  }
};

// Per non-blocking collective begun on a location ("mpi.icoll", in order): does a matching
// "mpi.icoll_end" follow? (One freed while in flight, or a rank that died, has none.)
std::vector<bool> FinishedNonBlockingCollectives(const Trace& t, const EventColumns& ev) {
  std::vector<bool> finished;
  std::unordered_map<uint32_t, size_t> in_slot;  // slot -> its collective's place in `finished`
  for (size_t i = 0; i < ev.size(); ++i) {
    if (ev.kind[i] != EventKind::kMarker) continue;
    const std::string_view label = t.str(StringId(ev.arg[i]));
    if (!label.starts_with("mpi.icoll")) continue;
    if (auto slot = gst::ParseMpiCollEnd(label)) {
      if (auto it = in_slot.find(*slot); it != in_slot.end()) {
        finished[it->second] = true;
        in_slot.erase(it);
      }
    } else if (auto coll = gst::ParseMpiColl(label); coll && coll->slot != 0) {
      in_slot[coll->slot] = finished.size();
      finished.push_back(false);
    }
  }
  return finished;
}

// One side (send or receive) of a message as a file recorded it.
struct Side {
  TimeNs time = 0;
  uint32_t file = 0;
  uint32_t location = 0;  // in the file
  EventIndex event = kNoEvent;
  uint32_t message = 0;   // the file's message row
  auto operator<=>(const Side&) const = default;
};

class Merger {
 public:
  explicit Merger(std::vector<RankFile> files) : files_(std::move(files)), builder_("gst") {}

  Result<Trace> Run() {
    AddLocations();
    AddCommunicators();
    PairMessages();
    for (uint32_t f = 0; f < files_.size(); ++f) AppendEvents(f);
    AddMetadataAndDiagnostics();
    return builder_.Finish();
  }

 private:
  LocationId RankLocation(int rank) const {
    auto it = rank_location_.find(rank);
    return it == rank_location_.end() ? LocationId() : it->second;
  }

  void AddLocations() {
    for (RankFile& file : files_) {
      const Trace& t = file.trace;
      LocationId main;
      for (uint32_t l = 0; l < t.locations().size(); ++l) {
        LocationId id;
        if (l == 0) {
          id = main = builder_.AddLocation(fmt::format("rank {}", file.rank), LocationKind::kRank, file.rank);
          rank_location_[file.rank] = id;
        } else {
          id = builder_.AddLocation(fmt::format("rank {} {}", file.rank, t.str(t.locations()[l].name)),
                                    LocationKind::kThread, file.rank);
          builder_.SetLocationGroup(id, main.value);
        }
        file.merged.push_back(id);
      }
    }
  }

  void AddCommunicators() {
    std::vector<gst::MpiCommLabel> comms;
    for (const RankFile& file : files_) {
      const Trace& t = file.trace;
      for (uint32_t l = 0; l < t.locations().size(); ++l) {
        const EventColumns& ev = t.events(LocationId(l));
        for (size_t i = 0; i < ev.size(); ++i) {
          if (ev.kind[i] != EventKind::kMarker) continue;
          auto c = gst::ParseMpiComm(t.str(StringId(ev.arg[i])));
          if (!c) continue;
          const bool seen = std::any_of(comms.begin(), comms.end(), [&](const auto& x) { return x.id == c->id; });
          if (!seen) comms.push_back(std::move(*c));
        }
      }
    }
    // MPI_COMM_WORLD first, then the others by id: the same ids in every run of a program.
    std::stable_sort(comms.begin(), comms.end(), [](const auto& a, const auto& b) {
      return (a.id != "w") < (b.id != "w") || ((a.id != "w") == (b.id != "w") && a.id < b.id);
    });
    for (const auto& c : comms) {
      std::vector<LocationId> members;
      for (int r : c.members) {
        LocationId loc = RankLocation(r);
        if (!loc.valid()) {
          builder_.diagnostics().Add(Diag::kUnknownRanks, fmt::format("communicator {} names rank {}, which left no trace file", c.id, r));
          continue;
        }
        members.push_back(loc);
      }
      comm_[c.id] = builder_.AddCommunicator(c.id == "w" ? "MPI_COMM_WORLD" : "comm " + c.id, std::move(members));
    }
  }

  // The k-th send of a key with the k-th receive of that key, each side in its order of
  // completion (a key has one sender and one receiver rank: MPI's non-overtaking rule).
  void PairMessages() {
    ChannelIds<std::string_view> keys;  // views into files_' string pools
    FifoMessageMatcher<Side> matcher;
    send_id_.resize(files_.size());
    recv_id_.resize(files_.size());
    for (uint32_t f = 0; f < files_.size(); ++f) {
      const MessageTable& m = files_[f].trace.messages();
      send_id_[f].assign(m.size(), MessageId());
      recv_id_[f].assign(m.size(), MessageId());
      for (uint32_t i = 0; i < m.size(); ++i) {
        const uint32_t channel = keys.Id(files_[f].trace.str(m.name[i]));
        if (m.send_event[i] != kNoEvent) {
          const TimeNs t = files_[f].trace.events(m.sender[i]).time[m.send_event[i]];
          matcher.AddSend(channel, Side{t, f, m.sender[i].value, m.send_event[i], i});
        }
        if (m.recv_event[i] != kNoEvent) {
          const TimeNs t = files_[f].trace.events(m.receiver[i]).time[m.recv_event[i]];
          matcher.AddReceive(channel, Side{t, f, m.receiver[i].value, m.recv_event[i], i});
        }
      }
    }
    matcher.Group();
    std::vector<uint32_t> by_key(keys.size());  // message ids follow the keys' order
    std::iota(by_key.begin(), by_key.end(), 0u);
    std::sort(by_key.begin(), by_key.end(), [&](uint32_t a, uint32_t b) { return keys.key(a) < keys.key(b); });
    for (uint32_t channel : by_key) {
      std::sort(matcher.sends(channel).begin(), matcher.sends(channel).end());
      std::sort(matcher.receives(channel).begin(), matcher.receives(channel).end());
      const std::string_view key = keys.key(channel);
      const auto parsed = gst::ParseMpiMessageName(key);
      matcher.Match(channel, [&](uint32_t, const Side* s, const Side* r) {
        MessageInfo info;
        info.name = parsed ? std::string_view() : std::string_view(key);
        if (parsed) {
          info.tag = parsed->tag;
          auto c = comm_.find(parsed->comm);
          if (c != comm_.end()) info.communicator = c->second;
          info.sender = RankLocation(parsed->sender);
          info.receiver = RankLocation(parsed->receiver);
        }
        if (s) info.sender = files_[s->file].merged[s->location];
        if (r) info.receiver = files_[r->file].merged[r->location];
        const Side& any = s ? *s : *r;
        info.bytes = files_[any.file].trace.messages().bytes[any.message];
        if (!s) ++unsent_;
        if (!r) ++unreceived_;
        if (!s && first_unsent_.empty()) first_unsent_ = fmt::format("message '{}' is received but never sent", key);
        if (!r && first_unreceived_.empty()) first_unreceived_ = fmt::format("message '{}' is sent but never received", key);
        const MessageId id = builder_.AddMessage(info);
        if (s) send_id_[s->file][s->message] = id;
        if (r) recv_id_[r->file][r->message] = id;
      });
    }
  }

  RegionId MergedRegion(const Trace& t, RegionId r) {
    const Region& region = t.region(r);
    const std::string_view name = t.str(region.name);
    const RegionRole role = region.role;  // the rank's reader resolved it (TraceBuilder::AddRegion)
    auto key = std::make_pair(std::string(name), role);
    auto it = regions_.find(key);
    if (it != regions_.end()) return it->second;
    const RegionId id = builder_.AddRegion(name, role, static_cast<int64_t>(regions_.size()));
    regions_.emplace(std::move(key), id);
    return id;
  }

  void AppendEvents(uint32_t f) {
    const RankFile& file = files_[f];
    const Trace& t = file.trace;
    for (uint32_t l = 0; l < t.locations().size(); ++l) {
      const LocationId loc = file.merged[l];
      const EventColumns& ev = t.events(LocationId(l));
      std::vector<bool> kept;  // per open region: is it in the merged trace?
      std::optional<CollectiveId> open_collective;
      size_t collective_depth = 0;  // regions open at its marker: the innermost is its call
      // Non-blocking collectives: which ones end on this location (by begin order), the one in
      // each slot, and how many began so far.
      const std::vector<bool> finished = FinishedNonBlockingCollectives(t, ev);
      // The merged trace's region of each of this file's regions, looked up on first use (a name
      // lookup per event was half the time of reading a rank directory).
      std::vector<RegionId> merged_region(t.regions().size());
      auto region_of = [&](uint32_t r) {
        if (!merged_region[r].valid()) merged_region[r] = MergedRegion(t, RegionId(r));
        return merged_region[r];
      };
      std::unordered_map<uint32_t, CollectiveId> in_slot;
      size_t nonblocking_begun = 0;
      TimeNs last = std::numeric_limits<TimeNs>::min();
      for (size_t i = 0; i < ev.size(); ++i) {
        TimeNs time = file.Aligned(ev.time[i]) - origin_;
        time = std::max(time, last);  // interpolation must not reorder a location's events
        last = time;
        switch (ev.kind[i]) {
          case EventKind::kEnter: {
            const Region& region = t.region(RegionId(ev.arg[i]));
            const std::string_view name = t.str(region.name);
            // The per-file "send"/"receive" regions around message events: the MPI call's region
            // stands for the call.
            const bool helper = region.external_id == -1 && (name == "send" || name == "receive");
            kept.push_back(!helper);
            if (!helper) builder_.Enter(loc, time, region_of(ev.arg[i]));
            break;
          }
          case EventKind::kLeave: {
            const bool keep = kept.empty() || kept.back();
            if (!kept.empty()) kept.pop_back();
            if (!keep) break;
            const RegionId r = region_of(ev.arg[i]);
            // The collective ends with the call whose begin its marker follows (MPI_Init's role
            // is not collective, yet it holds one).
            if (open_collective && kept.size() + 1 == collective_depth) {
              builder_.CollEnd(loc, time, *open_collective);
              open_collective.reset();
            }
            builder_.Leave(loc, time, r);
            break;
          }
          case EventKind::kSend:
            builder_.Send(loc, time, send_id_[f][ev.arg[i]]);
            break;
          case EventKind::kRecv:
            builder_.Recv(loc, time, recv_id_[f][ev.arg[i]]);
            break;
          case EventKind::kSync: {
            const SyncTable& st = t.syncs();
            const uint32_t a = ev.arg[i];
            builder_.Sync(loc, time, st.kind[a], ProcessSyncObject(f, st.object[a]), st.arg[a]);
            break;
          }

          case EventKind::kMarker: {
            const std::string_view label = t.str(StringId(ev.arg[i]));
            if (!label.starts_with(gst::kMpiLabelPrefix)) {
              builder_.Marker(loc, time, builder_.Intern(label));
              break;
            }
            if (auto slot = gst::ParseMpiCollEnd(label)) {
              if (auto it = in_slot.find(*slot); it != in_slot.end()) {
                builder_.CollEnd(loc, time, it->second);
                in_slot.erase(it);
              }
              break;
            }
            auto coll = gst::ParseMpiColl(label);
            if (!coll) break;  // rank, communicator and clock labels were read before
            const bool ends = coll->slot == 0 || finished[nonblocking_begun++];
            auto c = comm_.find(coll->comm);
            if (c == comm_.end()) {
              builder_.diagnostics().Add(Diag::kUnknownCommunicators, fmt::format("{}: collective on communicator {}, which has no definition", file.path, coll->comm));
              break;
            }
            // The rank is the participant: its threads share its collective sequence. An
            // unfinished one still takes its place in the sequence.
            const uint32_t comm = communicator_ids_.Id(coll->comm);
            const uint32_t k = collective_matcher_.Next(comm, f);
            if (!ends) {
              builder_.diagnostics().Add(Diag::kUnfinishedCollectives, fmt::format("{}: {} (slot {}) begins but never completes", file.path, label, coll->slot));
              break;
            }
            auto [it, added] = collectives_.try_emplace(std::make_pair(comm, k));
            if (added) it->second = builder_.AddCollective(gst::MpiCollOp(coll->op), c->second, RankLocation(coll->root));
            builder_.CollBegin(loc, time, it->second, coll->sent, coll->received);
            if (coll->slot != 0) {
              in_slot[coll->slot] = it->second;
            } else {
              open_collective = it->second;
              collective_depth = kept.size();
            }
            break;
          }
          default:
            break;  // the .gst reader makes no other kinds
        }
      }
    }
  }

  void AddMetadataAndDiagnostics() {
    if (!files_.empty()) {
      for (const MetadataEntry& m : files_.front().trace.metadata()) {
        builder_.AddMetadata(files_.front().trace.str(m.key), files_.front().trace.str(m.value));
      }
    }
    builder_.AddMetadata(metadata::kMpiRanks, std::to_string(files_.size()));
    for (const RankFile& file : files_) {
      if (file.labelled && !file.has_init) {
        builder_.diagnostics().Add(Diag::kRanksWithoutMpiInit, fmt::format("{}: rank {}", file.path, file.rank));
      }
      if (file.init) builder_.AddMetadata(fmt::format("{}{} {}", metadata::kRankPrefix, file.rank, metadata::kClockOffsetInitNs), std::to_string(file.init->offset_ns));
      if (file.finalize) builder_.AddMetadata(fmt::format("{}{} {}", metadata::kRankPrefix, file.rank, metadata::kClockOffsetFinalizeNs), std::to_string(file.finalize->offset_ns));
      for (const Diagnostic& d : file.trace.diagnostics().entries()) {
        if (d.kind == Diag::kReceivesWithoutSend || d.kind == Diag::kSendsWithoutReceive) continue;  // per file, meaningless
        builder_.diagnostics().AddCount(d.kind, d.count, d.example);
      }
    }
    if (unsent_ > 0) builder_.diagnostics().AddCount(Diag::kReceivesWithoutSend, unsent_, first_unsent_);
    if (unreceived_ > 0) builder_.diagnostics().AddCount(Diag::kSendsWithoutReceive, unreceived_, first_unreceived_);
  }

 public:
  Diagnostics& diagnostics() { return builder_.diagnostics(); }

  // Rendezvous edges (model/rendezvous.h) with the MPI library's eager limit as the first rank
  // that recorded one read it, else the assumed one.
  void SetEagerLimit() {
    for (const RankFile& f : files_) {
      if (!f.eager_limit) continue;
      builder_.SetEagerLimit(f.eager_limit->bytes, fmt::format("read from the MPI library: MPI_T variable {}", f.eager_limit->variable));
      return;
    }
    builder_.SetEagerLimitUnlessRecorded(kAssumedEagerLimitBytes, "assumed: the recording did not say");
  }

  // The merged times count from the earliest aligned start of recording or first record among
  // the ranks (a rank's MPI_Init region begins before its recording opened); time zero (the
  // origin) is the earliest aligned origin of a rank file that holds events: its first event (the
  // MPI_Init region's begin), or initialize_clock() (gst_reader.h), so no rank's recording
  // start-up counts.
  void SetOrigin() {
    origin_ = std::numeric_limits<int64_t>::max();
    for (const RankFile& f : files_) {
      origin_ = std::min(origin_, f.Aligned(0));
      for (uint32_t l = 0; l < f.trace.locations().size(); ++l) {
        const EventColumns& ev = f.trace.events(LocationId(l));
        if (ev.size() > 0) origin_ = std::min(origin_, f.Aligned(ev.time[0]));
      }
    }
    if (files_.empty()) origin_ = 0;
    std::optional<int64_t> first;
    for (const RankFile& f : files_) {
      if (f.trace.event_count() == 0) continue;
      const int64_t o = f.Aligned(f.trace.origin_ns());
      if (!first || o < *first) first = o;
    }
    builder_.SetOrigin(first ? *first - origin_ : 0);
  }

 private:
  std::vector<RankFile> files_;
  TraceBuilder builder_;
  int64_t origin_ = 0;
  std::map<int, LocationId> rank_location_;
  std::map<std::string, CommunicatorId> comm_;
  std::map<std::pair<std::string, RegionRole>, RegionId> regions_;
  ChannelIds<std::string> communicator_ids_;  // the "mpi.comm" ids, dense for the matcher
  CollectiveMatcher collective_matcher_;
  std::map<std::pair<uint32_t, uint32_t>, CollectiveId> collectives_;  // (communicator, k) -> instance
  std::vector<std::vector<MessageId>> send_id_, recv_id_;
  uint64_t unsent_ = 0, unreceived_ = 0;
  std::string first_unsent_, first_unreceived_;
};

std::vector<std::string> GstFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".gst" && entry.is_regular_file(ec)) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// The rank and clock labels of one file.
void ReadRankLabels(RankFile& file) {
  const Trace& t = file.trace;
  int64_t origin = 0;
  const std::string_view o = t.Metadata(metadata::kClockOriginMonotonicNs);
  if (!o.empty() && std::from_chars(o.data(), o.data() + o.size(), origin).ec == std::errc()) {
    file.origin_monotonic_ns = origin;
  }
  if (!t.locations().empty()) {
    const EventColumns& ev = t.events(LocationId(0));
    const auto first_enter = std::find(ev.kind.begin(), ev.kind.end(), EventKind::kEnter);
    if (first_enter != ev.kind.end()) {
      const size_t i = static_cast<size_t>(first_enter - ev.kind.begin());
      file.has_init = t.str(t.region(RegionId(ev.arg[i])).name).starts_with("MPI_Init");
    }
  }
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& ev = t.events(LocationId(l));
    for (size_t i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] != EventKind::kMarker) continue;
      const std::string_view label = t.str(StringId(ev.arg[i]));
      if (auto r = gst::ParseMpiRank(label)) {
        file.rank = r->rank;
        file.run = r->run;
        file.labelled = true;
      }
      if (auto e = gst::ParseMpiEagerLimit(label)) file.eager_limit = *e;
      if (auto c = gst::ParseMpiClock(label)) {
        (c->finalize ? file.finalize : file.init) = *c;
        (c->finalize ? file.finalize_time : file.init_time) = ev.time[i];
      }
    }
  }
}

// A trace is one run: when the rank files carry run ids, only those of one run are merged — the
// run with the most files, on a tie the one whose rank 0 wrote rank-00000.gst (the name the
// library gives it); the others are left out and named. Returns why each file was left out.
std::vector<std::string> KeepOneRun(std::vector<RankFile>& files) {
  std::map<uint64_t, std::pair<size_t, bool>> score;  // run -> (files, wrote rank-00000.gst)
  for (const RankFile& f : files) {
    if (!f.run) continue;
    auto& [count, canonical] = score[*f.run];
    ++count;
    canonical |= f.rank == 0 && fs::path(f.path).filename() == "rank-00000.gst";
  }
  if (score.empty()) return {};  // files of older versions: no ids to check
  const uint64_t run = std::max_element(score.begin(), score.end(), [](const auto& a, const auto& b) {
                         return a.second < b.second;
                       })->first;
  std::vector<std::string> left_out;
  std::erase_if(files, [&](const RankFile& f) {
    if (!f.labelled || f.run == run) return false;  // unlabelled files: not libgrainscope-mpi's
    left_out.push_back(f.run ? fmt::format("{}: rank file of another run ({:016x}; this trace is run {:016x}): not merged",
                                           f.path, *f.run, run)
                             : fmt::format("{}: rank file without a run id beside files of run {:016x}: not merged",
                                           f.path, run));
    return true;
  });
  return left_out;
}

}  // namespace

bool LooksLikeGstDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && !GstFiles(path).empty();
}

Result<Trace> ReadGstDirectory(const std::string& path) {
  const std::vector<std::string> paths = GstFiles(path);
  if (paths.empty()) return NotFound(fmt::format("{}: no .gst files in the directory", path));
  if (paths.size() > limits::kMaxRankFiles) {
    return DataLoss(fmt::format("{}: {} .gst files exceed the limit kMaxRankFiles = {} (docs/formats/gst.md)", path,
                                paths.size(), limits::kMaxRankFiles));
  }
  std::vector<RankFile> files;
  std::vector<std::string> unreadable;
  Status first_error;
  // Progress in bytes over all rank files: each file's reader reports its own offsets on top of
  // the bytes of the files before it.
  std::vector<uint64_t> sizes;
  for (const std::string& p : paths) {
    std::error_code ec;
    const uint64_t size = fs::file_size(p, ec);
    sizes.push_back(ec ? 0 : size);
  }
  progress::Begin("reading", std::accumulate(sizes.begin(), sizes.end(), uint64_t{0}));
  uint64_t before = 0;
  for (size_t i = 0; i < paths.size(); ++i) {
    const std::string& p = paths[i];
    progress::SetBase(before);
    before += sizes[i];
    // The sync events as recorded: the merged trace derives their edges and barriers.
    auto t = ReadGstFile(p, /*derive_thread_sync=*/false);
    if (!t.ok()) {
      // A rank killed while its file was being created (mpirun kills the others when one rank
      // fails) must not hide the other ranks: skipped and counted, fatal only when all are bad.
      if (first_error.ok()) first_error = t.status();
      unreadable.push_back(t.status().message());
      continue;
    }
    RankFile f;
    f.path = p;
    f.trace = std::move(*t);
    ReadRankLabels(f);
    files.push_back(std::move(f));
  }
  std::vector<std::string> other_runs = KeepOneRun(files);
  // Files without a rank label (not written by libgrainscope-mpi) follow the ranks, by name.
  int next = 0;
  for (const RankFile& f : files) next = std::max(next, f.rank + 1);
  for (RankFile& f : files) {
    if (f.rank < 0) f.rank = next++;
  }
  std::stable_sort(files.begin(), files.end(), [](const RankFile& a, const RankFile& b) { return a.rank < b.rank; });
  for (size_t i = 1; i < files.size(); ++i) {
    if (files[i].rank == files[i - 1].rank) {
      return DataLoss(fmt::format("{}: {} and {} both hold rank {}", path, files[i - 1].path, files[i].path, files[i].rank));
    }
  }
  if (files.empty()) return first_error;
  Merger merger(std::move(files));
  merger.SetOrigin();
  merger.SetEagerLimit();
  for (const std::string& why : unreadable) merger.diagnostics().Add(Diag::kUnreadableRankFiles, why);
  for (const std::string& why : other_runs) merger.diagnostics().Add(Diag::kOtherRunFiles, why);
  return merger.Run();
}

}  // namespace grainscope
