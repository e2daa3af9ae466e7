#include "model/trace_parts.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "model/message_matcher.h"
#include "model/part_merger.h"
#include "model/thread_sync.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace part_merge {


// Whole files: every location of every part, kind, external id and process kept.
void PartMerger::AddFileLocations() {
  merged_.resize(parts_.size());
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const Trace& t = parts_[p].trace;
    for (const Location& l : t.locations()) {
      merged_[p].push_back(
          builder_.AddLocation(fmt::format("rank {} {}", parts_[p].rank, t.str(l.name)), l.kind, l.external_id));
    }
    for (uint32_t l = 0; l < t.locations().size(); ++l)
      builder_.SetLocationGroup(merged_[p][l], merged_[p][t.locations()[l].group].value);
  }
}

LocationId MergedOrNone(const std::vector<LocationId>& merged, LocationId l) {
  return l.valid() ? merged[l.value] : LocationId();
}

// Whole files: the communicators of collective rows that a key makes one across parts (NCCL's
// process groups in a PyTorch rank directory), each with the members of every part.
void PartMerger::AddSharedCommunicators() {
  std::map<std::string, std::vector<LocationId>, std::less<>> members;
  std::map<std::string, std::string, std::less<>> names;
  part_shared_comm_.resize(parts_.size());
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const Trace& t = parts_[p].trace;
    const CollectiveTable& ct = t.collectives();
    for (uint32_t c = 0; c < ct.size(); ++c) {
      const std::string* key = SharedKey(p, c);
      if (key == nullptr) continue;
      std::vector<LocationId>& m = members[*key];
      for (uint32_t r = ct.first_member[c]; r < ct.first_member[c + 1]; ++r) m.push_back(merged_[p][ct.member_location[r].value]);
      if (ct.communicator[c].valid()) names.try_emplace(*key, t.str(t.communicators()[ct.communicator[c].value].name));
    }
  }
  for (auto& [key, m] : members) {
    std::sort(m.begin(), m.end());
    m.erase(std::unique(m.begin(), m.end()), m.end());
    auto name = names.find(key);
    shared_comm_[key] = builder_.AddCommunicator(name != names.end() ? name->second : key, std::move(m));
  }
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const CollectiveTable& ct = parts_[p].trace.collectives();
    for (uint32_t c = 0; c < ct.size(); ++c) {
      const std::string* key = SharedKey(p, c);
      if (key != nullptr && ct.communicator[c].valid()) part_shared_comm_[p][ct.communicator[c].value] = shared_comm_[*key];
    }
  }
}

void PartMerger::CopyCommunicators(uint32_t p) {
  part_comm_.resize(parts_.size());
  const Trace& t = parts_[p].trace;
  for (const Communicator& c : t.communicators()) {
    const uint32_t own = static_cast<uint32_t>(part_comm_[p].size());
    if (auto shared = part_shared_comm_[p].find(own); shared != part_shared_comm_[p].end()) {
      part_comm_[p].push_back(shared->second);
      continue;
    }
    std::vector<LocationId> members;
    for (LocationId m : c.members) members.push_back(MergedOrNone(merged_[p], m));
    part_comm_[p].push_back(builder_.AddCommunicator(t.str(c.name), std::move(members)));
  }
}

// Whole files: part p's message rows, each as it is (a side its file lacks stays missing), but
// those another file completes (PairMessages).
void PartMerger::CopyMessages(uint32_t p) {
  send_id_.resize(parts_.size());
  recv_id_.resize(parts_.size());
  const Trace& t = parts_[p].trace;
  const MessageTable& m = t.messages();
  send_id_[p].assign(m.size(), MessageId());
  recv_id_[p].assign(m.size(), MessageId());
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (PairedAcrossFiles(t, i)) continue;  // PairMessages'
    MessageInfo info;
    info.sender = MergedOrNone(merged_[p], m.sender[i]);
    info.receiver = MergedOrNone(merged_[p], m.receiver[i]);
    info.tag = m.tag[i];
    info.name = t.str(m.name[i]);
    info.bytes = m.bytes[i];
    if (m.communicator[i].valid()) info.communicator = part_comm_[p][m.communicator[i].value];
    if (m.send_grain[i].valid()) info.send_grain = RegionOf(p, m.send_grain[i].value);
    if (m.recv_grain[i].valid()) info.recv_grain = RegionOf(p, m.recv_grain[i].value);
    const MessageId id = builder_.AddMessage(info);
    send_id_[p][i] = id;
    recv_id_[p][i] = id;
    // A row with a side missing stays the file's own; where the options drop the file's report
    // of it (part_only_diagnostics), the merge says it.
    if (!merge_reports_unmatched_) continue;
    const std::string& file = parts_[p].name;
    if (m.send_event[i] == kNoEvent) unmatched_.NoSend([&] { return fmt::format("{}: a message is received but never sent", file); });
    if (m.recv_event[i] == kNoEvent) unmatched_.NoReceive([&] { return fmt::format("{}: a message is sent but never received", file); });
  }
}

void PartMerger::CopyCollectives(uint32_t p) {
  part_collective_.resize(parts_.size());
  const CollectiveTable& ct = parts_[p].trace.collectives();
  for (uint32_t c = 0; c < ct.op.size(); ++c) {
    const CommunicatorId comm = ct.communicator[c].valid() ? part_comm_[p][ct.communicator[c].value] : CommunicatorId();
    if (const std::string* key = SharedKey(p, c); key != nullptr) {
      auto [it, added] = shared_collectives_.try_emplace(std::make_pair(*key, parts_[p].collectives[c].sequence));
      if (added) it->second = builder_.AddCollective(ct.op[c], comm, LocationId());
      part_collective_[p].push_back(it->second);
      continue;
    }
    part_collective_[p].push_back(builder_.AddCollective(ct.op[c], comm, MergedOrNone(merged_[p], ct.root[c])));
  }
}

// Part p's channel of message row i: an MPI channel (communicator key, ranks, tag) where the part
// or describe_channel says it, else the row's name. `texts` holds views into the parts' strings
// and `owned`'s; `named` caches the global channel of each distinct name.
MergeChannel PartMerger::ChannelOf(uint32_t p, uint32_t i, ChannelIds<std::string_view>& texts,
                                   std::unordered_map<std::string_view, MergeChannel>& named,
                                   std::deque<std::string>& owned) {
  const TracePart& part = parts_[p];
  if (!part.message_channels.empty()) {  // as many as rows: checked by MergeParts
    const TracePart::Channel& c = part.message_channels[i];
    return {texts.Id(part.channel_texts[c.text]), c.sender, c.receiver, c.tag};
  }
  const std::string_view name = part.trace.str(part.trace.messages().name[i]);
  auto [it, added] = named.try_emplace(name);
  if (!added) return it->second;
  const std::optional<ChannelEnds> ends = options_.describe_channel ? options_.describe_channel(name) : std::nullopt;
  if (ends) {
    const std::string_view comm = owned.emplace_back(ends->communicator);
    it->second = {texts.Id(comm), static_cast<int32_t>(ends->sender_rank), static_cast<int32_t>(ends->receiver_rank),
                  ends->tag};
  } else {
    it->second = {texts.Id(name), TracePart::kNamedChannel, 0, 0};
  }
  return it->second;
}

void PartMerger::PairMessages() {
  ChannelIds<std::string_view> texts;  // communicator keys and names
  std::unordered_map<std::string_view, MergeChannel> named;
  std::deque<std::string> owned;
  ChannelIds<MergeChannel, MergeChannelHash> channels;
  FifoMessageMatcher<MessageEnd> matcher;
  send_id_.resize(parts_.size());
  recv_id_.resize(parts_.size());
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const Trace& t = parts_[p].trace;
    const MessageTable& m = t.messages();
    if (!whole_files()) {
      send_id_[p].assign(m.size(), MessageId());
      recv_id_[p].assign(m.size(), MessageId());
    }
    for (uint32_t i = 0; i < m.size(); ++i) {
      if (whole_files() && !PairedAcrossFiles(t, i)) continue;  // CopyMessages'
      const uint32_t channel = channels.Id(ChannelOf(p, i, texts, named, owned));
      if (m.send_event[i] != kNoEvent) {
        matcher.AddSend(channel, MessageEnd{t.events(m.sender[i]).time[m.send_event[i]], p, m.sender[i].value, m.send_event[i], i});
      }
      if (m.recv_event[i] != kNoEvent) {
        matcher.AddReceive(channel, MessageEnd{t.events(m.receiver[i]).time[m.recv_event[i]], p, m.receiver[i].value, m.recv_event[i], i});
      }
    }
  }
  matcher.Group();
  // Message ids follow the channels: MPI ones by (communicator key, sender, receiver, tag), then
  // named ones by name.
  std::vector<uint32_t> order(channels.size());
  std::iota(order.begin(), order.end(), 0u);
  auto sort_key = [&](uint32_t c) {
    const MergeChannel& k = channels.key(c);
    return std::make_tuple(k.sender == TracePart::kNamedChannel, texts.key(k.text), k.sender, k.receiver, k.tag);
  };
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return sort_key(a) < sort_key(b); });
  matcher.OrderEachChannel(std::less<MessageEnd>());  // completion order in each part's clock
  for (uint32_t channel : order) {
    const MergeChannel& k = channels.key(channel);
    std::optional<ChannelEnds> ends;
    std::string_view name = texts.key(k.text);
    if (k.sender != TracePart::kNamedChannel) {
      ends = ChannelEnds{std::string(name), k.sender, k.receiver, k.tag};
      name = {};
    }
    matcher.Match(channel, [&](uint32_t, const MessageEnd* s, const MessageEnd* r) { AddMessage(name, ends, s, r); });
  }
}

// A message of the channel `name` (empty: the MPI channel `ends`) from its matched ends.
void PartMerger::AddMessage(std::string_view name, const std::optional<ChannelEnds>& ends, const MessageEnd* s,
                            const MessageEnd* r) {
  MessageInfo info;
  if (ends) {
    info.tag = ends->tag;
    if (auto c = comm_.find(ends->communicator); c != comm_.end()) info.communicator = c->second;
    info.sender = RankLocation(ends->sender_rank);
    info.receiver = RankLocation(ends->receiver_rank);
  } else {
    info.name = name;
  }
  if (s) info.sender = merged_[s->part][s->location];
  if (r) info.receiver = merged_[r->part][r->location];
  const MessageEnd& any = s ? *s : *r;
  info.bytes = parts_[any.part].trace.messages().bytes[any.message];
  auto what = [&] {
    if (!ends) return std::string(name);
    return fmt::format("mpi.msg {} {} {} {}", ends->communicator, ends->sender_rank, ends->receiver_rank, ends->tag);
  };
  if (!s) unmatched_.NoSend([&] { return fmt::format("message '{}' is received but never sent", what()); });
  if (!r) unmatched_.NoReceive([&] { return fmt::format("message '{}' is sent but never received", what()); });
  const MessageId id = builder_.AddMessage(info);
  if (s) send_id_[s->part][s->message] = id;
  if (r) recv_id_[r->part][r->message] = id;
}

void PartMerger::AddMetadataAndDiagnostics() {
  if (whole_files()) {
    for (uint32_t p = 0; p < parts_.size(); ++p)
      for (const auto& [key, value] : kept_[p].metadata)
        builder_.AddMetadata(fmt::format("rank {} {}", parts_[p].rank, key), value);
  } else if (!parts_.empty()) {
    for (const auto& [key, value] : kept_.front().metadata) builder_.AddMetadata(key, value);
  }
  for (const auto& [key, value] : options_.metadata) builder_.AddMetadata(key, value);
  const auto& part_only = options_.part_only_diagnostics;
  for (uint32_t p = 0; p < parts_.size(); ++p) {
    const TracePart& part = parts_[p];
    builder_.diagnostics().Merge(part.notes);
    for (const auto& [key, value] : part.metadata) builder_.AddMetadata(key, value);
    for (const Diagnostic& d : kept_[p].diagnostics) {
      if (std::find(part_only.begin(), part_only.end(), d.kind) != part_only.end()) continue;
      // The merged trace names its own empty locations, by their merged names (TraceBuilder).
      if (d.kind == Diag::kEmptyLocations) continue;
      builder_.diagnostics().AddCount(d.kind, d.count, d.example);
    }
  }
  unmatched_.Report(builder_.diagnostics());
}

}  // namespace part_merge

Result<Trace> MergeParts(std::vector<TracePart> parts, const MergeOptions& options) {
  for (const TracePart& p : parts) {
    const size_t rows = p.trace.messages().size();
    if (!p.message_channels.empty() && p.message_channels.size() != rows) {
      return Internal(fmt::format("{}: {} message channels for {} message rows", p.name, p.message_channels.size(), rows));
    }
  }
  return part_merge::PartMerger(std::move(parts), options).Run();
}

}  // namespace grainscope
