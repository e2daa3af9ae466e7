#include "format/gst/gst_rank_part.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "model/metadata_keys.h"

namespace grainscope::gst {

void MpiLabelTranslator::StartLocation(const std::vector<NonBlockingMark>& marks) {
  // Per non-blocking collective begun here (in order): does an end of its slot follow? (One freed
  // while in flight, or a rank that died, has none.)
  finished_.clear();
  std::unordered_map<uint32_t, size_t> in_slot;  // slot -> its collective's place in finished_
  for (const NonBlockingMark& mark : marks) {
    if (mark.end) {
      if (auto it = in_slot.find(mark.slot); it != in_slot.end()) {
        finished_[it->second] = true;
        in_slot.erase(it);
      }
    } else {
      in_slot[mark.slot] = finished_.size();
      finished_.push_back(false);
    }
  }
  nonblocking_begun_ = 0;
  in_slot_.clear();
  open_collective_.reset();
  depth_ = collective_depth_ = 0;
}

// The collective ends with the call whose begin its label follows (MPI_Init's role is not
// collective, yet it holds one).
void MpiLabelTranslator::BeforeLeave(TraceBuilder& b, LocationId loc, TimeNs t) {
  if (depth_ > 0) --depth_;
  if (open_collective_ && depth_ + 1 == collective_depth_) {
    b.CollEnd(loc, t, *open_collective_);
    open_collective_.reset();
  }
}

void MpiLabelTranslator::Label(TraceBuilder& b, LocationId loc, TimeNs t, std::string_view label) {
  RankLabels& labels = out_.labels;
  if (auto r = ParseMpiRank(label)) {
    labels.rank = r->rank;
    labels.run = r->run;
    labels.labelled = true;
  } else if (auto e = ParseMpiEagerLimit(label)) {
    labels.eager_limit = *e;
  } else if (auto c = ParseMpiClock(label)) {
    (c->finalize ? labels.finalize : labels.init) = *c;
    (c->finalize ? labels.finalize_time : labels.init_time) = t;
  } else if (auto comm = ParseMpiComm(label)) {
    std::vector<grainscope::PartCommunicator>& comms = out_.part.communicators;
    const bool seen = std::any_of(comms.begin(), comms.end(), [&](const auto& x) { return x.key == comm->id; });
    if (!seen) {
      std::vector<int64_t> members(comm->members.begin(), comm->members.end());
      comms.push_back({comm->id, comm->id == "w" ? "MPI_COMM_WORLD" : "comm " + comm->id, std::move(members)});
    }
  } else if (auto slot = ParseMpiCollEnd(label)) {
    CollectiveEnd(b, loc, t, *slot);
  } else if (auto coll = ParseMpiColl(label)) {
    Collective(b, loc, t, *coll);
  }
}

void MpiLabelTranslator::CollectiveEnd(TraceBuilder& b, LocationId loc, TimeNs t, uint32_t slot) {
  if (auto it = in_slot_.find(slot); it != in_slot_.end()) {
    b.CollEnd(loc, t, it->second);
    in_slot_.erase(it);
  }
}

// A collective's begin: it takes the next sequence number on its communicator (the rank is the
// participant: its threads share its sequence), also when it never completes.
void MpiLabelTranslator::Collective(TraceBuilder& b, LocationId loc, TimeNs t, const MpiCollLabel& coll) {
  const bool ends = coll.slot == 0 || (nonblocking_begun_ < finished_.size() && finished_[nonblocking_begun_]);
  if (coll.slot != 0) ++nonblocking_begun_;
  const uint32_t sequence = sequence_.Next(communicator_ids_.Id(coll.comm), 0);
  if (!ends) {
    out_.part.collective_notes.Add(Diag::kUnfinishedCollectives,
                                   fmt::format("{}: {} (slot {}) begins but never completes", file_, MpiCollLabelText(coll), coll.slot));
    return;
  }
  const CollectiveId c = b.AddCollective(MpiCollOp(coll.op), PartCommunicator(b, coll.comm), LocationId());
  out_.part.collectives.push_back({coll.comm, sequence, coll.root});
  b.CollBegin(loc, t, c, coll.sent, coll.received);
  if (coll.slot != 0) {
    in_slot_[coll.slot] = c;
  } else {
    open_collective_ = c;
    collective_depth_ = depth_;
  }
}

uint32_t MpiLabelTranslator::ChannelText(std::string_view text) {
  std::vector<std::string>& texts = out_.part.channel_texts;
  auto [it, added] = channel_text_.try_emplace(std::string(text), static_cast<uint32_t>(texts.size()));
  if (added) texts.emplace_back(text);
  return it->second;
}

TracePart::Channel MpiLabelTranslator::MessageChannel(std::string_view communicator, int32_t sender, int32_t receiver,
                                                      int32_t tag) {
  return {ChannelText(communicator), sender, receiver, tag};
}

TracePart::Channel MpiLabelTranslator::NamedMessageChannel(std::string_view name) {
  if (auto m = ParseMpiMessageName(name)) return MessageChannel(m->comm, m->sender, m->receiver, m->tag);
  return {ChannelText(name), TracePart::kNamedChannel, 0, 0};
}

// The part's stand-in for a communicator (the members are other parts' ranks, known at the merge).
CommunicatorId MpiLabelTranslator::PartCommunicator(TraceBuilder& b, const std::string& key) {
  auto [it, added] = part_comm_.try_emplace(key);
  if (added) it->second = b.AddCommunicator(key, {});
  return it->second;
}

namespace {

// Its main location's first region is MPI_Init (or MPI_Init_thread).
bool BeginsWithMpiInit(const Trace& t) {
  if (t.locations().empty()) return false;
  const EventColumns& ev = t.events(LocationId(0));
  const auto first_enter = std::find(ev.kind.begin(), ev.kind.end(), EventKind::kEnter);
  if (first_enter == ev.kind.end()) return false;
  const size_t i = static_cast<size_t>(first_enter - ev.kind.begin());
  return t.str(t.region(RegionId(ev.arg[i])).name).starts_with("MPI_Init");
}

}  // namespace

Result<RankPart> ReadRankPart(const std::string& path) {
  RankPart out;
  MpiLabelTranslator mpi(path, out);
  GS_ASSIGN_OR_RETURN(out.part.trace, ReadGstFileAsPart(path, mpi));
  out.part.name = path;
  out.has_init = BeginsWithMpiInit(out.part.trace);
  int64_t origin = 0;
  const std::string_view o = out.part.trace.Metadata(metadata::kClockOriginMonotonicNs);
  if (!o.empty() && std::from_chars(o.data(), o.data() + o.size(), origin).ec == std::errc()) {
    out.origin_monotonic_ns = origin;
  }
  return out;
}

}  // namespace grainscope::gst
