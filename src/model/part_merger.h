// MergeParts (trace_parts.h) as a class, internal to model/: trace_parts.cc makes the merged
// trace's locations, communicators, messages and metadata; part_events.cc moves or copies each
// part's events in.
#pragma once

#include <algorithm>
#include <compare>
#include <deque>
#include <limits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "model/message_matcher.h"
#include "model/trace_builder.h"
#include "model/trace_parts.h"

namespace grainscope::part_merge {

// One end (send or receive) of a part's message row.
struct MessageEnd {
  TimeNs time = 0;  // in its part's own clock: the order of completion there
  uint32_t part = 0;
  uint32_t location = 0;  // in the part
  EventIndex event = kNoEvent;
  uint32_t message = 0;  // the part's message row
  auto operator<=>(const MessageEnd&) const = default;
};

// A channel of the merged run: an MPI channel (text: its communicator key) or a named one (text:
// its name, sender TracePart::kNamedChannel); text indexes PairMessages' table of texts.
struct MergeChannel {
  uint32_t text = 0;
  int32_t sender = 0, receiver = 0, tag = 0;
  bool operator==(const MergeChannel&) const = default;
};
struct MergeChannelHash {
  size_t operator()(const MergeChannel& k) const { return HashChannelFields(k.text, k.sender, k.receiver, k.tag); }
};

class PartMerger {
 public:
  PartMerger(std::vector<TracePart> parts, const MergeOptions& options)
      : parts_(std::move(parts)), options_(options), builder_(options.format),
        merge_reports_unmatched_(PartOnly(Diag::kSendsWithoutReceive) && PartOnly(Diag::kReceivesWithoutSend)) {}

  Result<Trace> Run() {
    builder_.diagnostics().Merge(options_.notes);
    region_map_.resize(parts_.size());
    SetOrigin();
    if (whole_files()) {
      builder_.SetEagerLimitIfRecorded();
      AddFileLocations();
      AddSharedCommunicators();
      for (uint32_t p = 0; p < parts_.size(); ++p) {
        for (uint32_t r = 0; r < parts_[p].trace.regions().size(); ++r) RegionOf(p, r);
        CopyCommunicators(p);
        CopyMessages(p);
        CopyCollectives(p);
      }
      PairMessages();  // the rows with a side in another file
    } else {
      SetEagerLimit();
      AddLocations();
      AddCommunicators();
      PairMessages();
    }
    kept_.resize(parts_.size());
    for (uint32_t p = 0; p < parts_.size(); ++p) {
      AppendEvents(p);
      builder_.diagnostics().Merge(parts_[p].collective_notes);
      AddDependencies(p);
      ReleasePart(p);
    }
    AddMetadataAndDiagnostics();
    return builder_.Finish();
  }

 private:
  bool whole_files() const { return options_.shape == PartShape::kWholeFiles; }
  bool PartOnly(Diag kind) const {
    const std::vector<Diag>& p = options_.part_only_diagnostics;
    return std::find(p.begin(), p.end(), kind) != p.end();
  }
  // Whole files: row `row` of a part's trace lacks a side that another file holds.
  bool PairedAcrossFiles(const Trace& t, uint32_t row) const {
    const MessageTable& m = t.messages();
    return (m.send_event[row] == kNoEvent || m.recv_event[row] == kNoEvent) && options_.pairs_across_files &&
           options_.pairs_across_files(t.str(m.name[row]));
  }

  LocationId RankLocation(int64_t rank) const {
    auto it = rank_location_.find(rank);
    return it == rank_location_.end() ? LocationId() : it->second;
  }

  // Time zero is the earliest aligned origin of a part that holds events; the merged times count
  // from the earliest aligned start of a part (its time 0) or first event.
  void SetOrigin() {
    origin_ = parts_.empty() ? 0 : std::numeric_limits<int64_t>::max();
    std::optional<int64_t> first;
    for (const TracePart& p : parts_) {
      origin_ = std::min(origin_, p.clock(0));
      for (uint32_t l = 0; l < p.trace.locations().size(); ++l) {
        const EventColumns& ev = p.trace.events(LocationId(l));
        if (ev.size() > 0) origin_ = std::min(origin_, p.clock(ev.time[0]));
      }
      if (p.trace.event_count() == 0) continue;
      const int64_t o = p.clock(p.trace.origin_ns());
      if (!first || o < *first) first = o;
    }
    builder_.SetOrigin(first ? *first - origin_ : 0);
  }

  void SetEagerLimit() {
    if (options_.eager_limit) {
      builder_.SetEagerLimit(options_.eager_limit->first, options_.eager_limit->second);
    } else {
      builder_.SetEagerLimitUnlessRecorded(options_.assumed_eager_limit, options_.assumed_eager_limit_source);
    }
  }

  void AddLocations() {
    merged_.resize(parts_.size());
    for (uint32_t p = 0; p < parts_.size(); ++p) {
      const TracePart& part = parts_[p];
      const Trace& t = part.trace;
      LocationId main;
      for (uint32_t l = 0; l < t.locations().size(); ++l) {
        LocationId id;
        if (l == 0) {
          id = main = builder_.AddLocation(fmt::format("rank {}", part.rank), LocationKind::kRank, part.rank);
          rank_location_[part.rank] = id;
        } else {
          id = builder_.AddLocation(fmt::format("rank {} {}", part.rank, t.str(t.locations()[l].name)),
                                    LocationKind::kThread, part.rank);
          builder_.SetLocationGroup(id, main.value);
        }
        merged_[p].push_back(id);
      }
    }
  }

  // The communicators the parts name, each once: the world first, then the others by key (the
  // same ids in every run of a program).
  void AddCommunicators() {
    std::vector<const PartCommunicator*> comms;
    for (const TracePart& part : parts_) {
      for (const PartCommunicator& c : part.communicators) {
        const bool seen = std::any_of(comms.begin(), comms.end(), [&](const auto* x) { return x->key == c.key; });
        if (!seen) comms.push_back(&c);
      }
    }
    const std::string& world = options_.world_communicator;
    std::stable_sort(comms.begin(), comms.end(), [&](const auto* a, const auto* b) {
      return (a->key != world) < (b->key != world) || ((a->key != world) == (b->key != world) && a->key < b->key);
    });
    for (const PartCommunicator* c : comms) {
      std::vector<LocationId> members;
      for (int64_t r : c->member_ranks) {
        const LocationId loc = RankLocation(r);
        if (!loc.valid()) {
          builder_.diagnostics().Add(Diag::kUnknownRanks, fmt::format("communicator {} names rank {}, which left no trace file", c->key, r));
          continue;
        }
        members.push_back(loc);
      }
      comm_[c->key] = builder_.AddCommunicator(c->name, std::move(members));
    }
  }

  void AddFileLocations();
  const std::string* SharedKey(uint32_t p, uint32_t row) const {
    const std::vector<PartCollective>& pc = parts_[p].collectives;
    return row < pc.size() && !pc[row].communicator.empty() ? &pc[row].communicator : nullptr;
  }
  void AddSharedCommunicators();
  void CopyCommunicators(uint32_t p);
  void CopyMessages(uint32_t p);
  void CopyCollectives(uint32_t p);
  MergeChannel ChannelOf(uint32_t p, uint32_t i, ChannelIds<std::string_view>& texts,
                         std::unordered_map<std::string_view, MergeChannel>& named, std::deque<std::string>& owned);
  void PairMessages();
  void AddMessage(std::string_view name, const std::optional<ChannelEnds>& ends, const MessageEnd* s, const MessageEnd* r);
  void AppendEvents(uint32_t p);
  bool Adopt(uint32_t p, uint32_t l);
  void CopyEvents(uint32_t p, uint32_t l);
  // Part p's event e of location l in the merged trace (kNoEvent: left out).
  EventIndex MergedEvent(uint32_t p, uint32_t l, EventIndex e) const {
    return adopted_[p][l] ? e : merged_event_[p][l][e];
  }
  CollectiveId InstanceOf(uint32_t p, uint32_t row, EventKind kind);
  void AppendCollectiveEvent(uint32_t p, LocationId loc, TimeNs time, EventKind kind, uint32_t row, uint32_t l,
                             EventIndex part_event);
  RegionId RegionOf(uint32_t p, uint32_t r);
  void AddDependencies(uint32_t p);
  void AddMetadataAndDiagnostics();

  // Once part p's events and dependencies are in the builder, the part's trace is freed (a rank
  // directory's parts held as much memory again as the merged trace), keeping only the little
  // AddMetadataAndDiagnostics takes from it.
  struct Kept {
    std::vector<std::pair<std::string, std::string>> metadata;
    std::vector<Diagnostic> diagnostics;
  };
  void ReleasePart(uint32_t p) {
    const Trace& t = parts_[p].trace;
    for (const MetadataEntry& m : t.metadata()) kept_[p].metadata.emplace_back(t.str(m.key), t.str(m.value));
    kept_[p].diagnostics = t.diagnostics().entries();
    parts_[p].trace = Trace();
    std::vector<std::vector<EventIndex>>().swap(merged_event_[p]);
  }

  std::vector<TracePart> parts_;
  const MergeOptions& options_;
  TraceBuilder builder_;
  int64_t origin_ = 0;
  std::vector<std::vector<LocationId>> merged_;  // per part: the merged location of each location
  // per part, per location: the merged event of each of its events; none for a location moved in
  // whole (adopted_), whose events keep their indices
  std::vector<std::vector<std::vector<EventIndex>>> merged_event_;
  std::vector<std::vector<uint8_t>> adopted_;
  std::map<int64_t, LocationId> rank_location_;
  std::map<std::string, CommunicatorId, std::less<>> comm_;
  std::map<std::tuple<std::string, RegionRole, std::string>, RegionId> regions_;  // (name, role, region key)
  std::vector<std::vector<RegionId>> region_map_;  // per part, per region: merged, once used
  std::map<std::pair<uint32_t, uint32_t>, CollectiveId> collectives_;  // (merged communicator, sequence) -> instance
  // Whole files: per part, the merged id of each of its communicator and collective rows.
  std::vector<std::vector<CommunicatorId>> part_comm_;
  std::vector<std::vector<CollectiveId>> part_collective_;
  // Whole files whose collective rows name a key (PartCollective): one communicator per key, the
  // part communicators of such rows mapped onto it, and one instance per (key, sequence).
  std::map<std::string, CommunicatorId, std::less<>> shared_comm_;
  std::vector<std::map<uint32_t, CommunicatorId>> part_shared_comm_;
  std::map<std::pair<std::string, uint32_t>, CollectiveId> shared_collectives_;
  std::vector<std::vector<MessageId>> send_id_, recv_id_;  // per part, per message row
  UnmatchedEnds unmatched_;
  std::vector<Kept> kept_;  // per part, once released
  bool merge_reports_unmatched_ = false;  // the parts' unmatched-message reports are dropped
};

LocationId MergedOrNone(const std::vector<LocationId>& merged, LocationId l);

}  // namespace grainscope::part_merge
