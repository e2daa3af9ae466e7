#include "model/share_exchange.h"

#include <algorithm>
#include <cstring>
#include <tuple>

#include <fmt/format.h>

#include "base/wire.h"

namespace grainscope {

Result<std::vector<std::string>> LocalShareExchange::Member::AllToAll(std::vector<std::string> out) {
  if (out.size() != all_.count_) return InvalidArgument(fmt::format("{} blobs for {} shares", out.size(), all_.count_));
  std::unique_lock lock(all_.mu_);
  all_.cv_.wait(lock, [&] { return !all_.draining_; });  // the previous round is taken
  for (uint32_t k = 0; k < all_.count_; ++k) all_.slots_[k][index_] = std::move(out[k]);
  if (++all_.arrived_ == all_.count_) {
    all_.draining_ = true;
    all_.cv_.notify_all();
  } else {
    all_.cv_.wait(lock, [&] { return all_.draining_; });
  }
  std::vector<std::string> in = std::move(all_.slots_[index_]);
  all_.slots_[index_].assign(all_.count_, std::string());
  if (++all_.taken_ == all_.count_) {
    all_.arrived_ = all_.taken_ = 0;
    all_.draining_ = false;
    all_.cv_.notify_all();
  }
  return in;
}

Status LocalShareExchange::Member::Send(uint32_t to, std::string blob) {
  if (to >= all_.count_) return InvalidArgument(fmt::format("no share {} of {}", to, all_.count_));
  std::lock_guard lock(all_.mu_);
  all_.inboxes_[to].emplace_back(index_, std::move(blob));
  all_.cv_.notify_all();
  return OkStatus();
}

Result<std::pair<uint32_t, std::string>> LocalShareExchange::Member::Receive() {
  std::unique_lock lock(all_.mu_);
  all_.cv_.wait(lock, [&] { return !all_.inboxes_[index_].empty(); });
  std::pair<uint32_t, std::string> next = std::move(all_.inboxes_[index_].front());
  all_.inboxes_[index_].pop_front();
  return next;
}

Status AgreeOnStatus(const Status& mine, ShareExchange& exchange) {
  std::string blob;
  wire::Put(blob, static_cast<uint32_t>(mine.code()));
  blob += mine.message();
  GS_ASSIGN_OR_RETURN(std::vector<std::string> all, exchange.AllToAll(std::vector<std::string>(exchange.count(), blob)));
  for (uint32_t k = 0; k < all.size(); ++k) {
    std::string_view b = all[k];
    uint32_t code = 0;
    if (!wire::Take(b, code)) return DataLoss(fmt::format("share {}: a damaged status from share {}", exchange.index(), k));
    if (static_cast<StatusCode>(code) == StatusCode::kOk) continue;
    if (k != exchange.index() && code > static_cast<uint32_t>(StatusCode::kInternal))
      return DataLoss(fmt::format("share {}: a damaged status from share {}", exchange.index(), k));
    exchange.failure_agreed_ = true;
    return k == exchange.index() ? mine : Status(static_cast<StatusCode>(code), std::string(b));
  }
  return mine;
}

namespace {

// What crosses: fixed-size records, the same build on every share.
struct WireEnd {
  uint32_t communicator, sender, receiver;
  int32_t tag;
  uint64_t key;
  uint32_t k, is_send;
  ShareEndEvents events;
};
struct WireMember {
  uint32_t communicator, owner, sequence, location;
  TimeNs begin_time, end_time;
  uint32_t begin_order, end_order;
  uint64_t bytes_sent, bytes_received;
};

using EndKey = std::tuple<uint32_t, uint32_t, uint32_t, int32_t, uint64_t, uint32_t, bool>;
EndKey KeyOf(const ShareMessageEnd& e) { return {e.communicator, e.sender, e.receiver, e.tag, e.key, e.k, e.is_send}; }

}  // namespace

namespace {

// The blob for each share: this share's ends whose other side it holds, and this share's members
// of the collectives it takes part in.
std::vector<std::string> Outgoing(const TraceShare& share, const ShareFacts& facts, const ShareMap& map, uint32_t self,
                                  uint32_t count) {
  std::vector<std::vector<WireEnd>> ends(count);
  std::vector<std::vector<WireMember>> members(count);
  for (size_t i = 0; i < share.messages.size(); ++i) {
    const ShareMessageEnd& e = share.messages[i];
    const uint32_t to = map.share_of_location[e.is_send ? e.receiver : e.sender];
    WireEnd w;
    std::memset(static_cast<void*>(&w), 0, sizeof w);  // no uninitialised padding goes to another process
    w.communicator = e.communicator, w.sender = e.sender, w.receiver = e.receiver, w.tag = e.tag, w.key = e.key;
    w.k = e.k, w.is_send = e.is_send ? 1u : 0u;
    const ShareEndEvents& f = facts.messages[i];
    w.events.order = f.order, w.events.time = f.time, w.events.rendezvous_order = f.rendezvous_order;
    w.events.rendezvous_time = f.rendezvous_time, w.events.enter_order = f.enter_order, w.events.leave_order = f.leave_order;
    w.events.enter_time = f.enter_time, w.events.leave_time = f.leave_time, w.events.call = f.call;
    ends[to].push_back(w);
  }
  std::vector<uint8_t> told(count);
  for (size_t i = 0; i < share.collectives.size(); ++i) {
    const ShareCollective& c = share.collectives[i];
    std::fill(told.begin(), told.end(), 0);
    told[self] = 1;
    for (uint32_t l : map.communicator_members[c.communicator]) {
      const uint32_t to = map.share_of_location[l];
      if (told[to]) continue;
      told[to] = 1;
      for (const ShareMember& m : facts.members[i])
        members[to].push_back({c.communicator, c.owner, c.sequence, m.location, m.begin_time, m.end_time,
                               m.begin_order, m.end_order, m.bytes_sent, m.bytes_received});
    }
  }
  std::vector<std::string> out(count);
  for (uint32_t k = 0; k < count; ++k) {
    wire::PutAll(out[k], ends[k]);
    wire::PutAll(out[k], members[k]);
  }
  return out;
}

// The ghost events the other shares' ends and members make for this share's rows.
Result<std::vector<GhostEvent>> GhostsOf(const TraceShare& share, const std::vector<WireEnd>& their_ends,
                                 const std::vector<WireMember>& their_members) {
  std::vector<std::pair<EndKey, uint32_t>> own_ends;
  for (const ShareMessageEnd& e : share.messages) own_ends.push_back({KeyOf(e), e.row.value});
  std::sort(own_ends.begin(), own_ends.end());
  using CollKey = std::tuple<uint32_t, uint32_t, uint32_t>;
  std::vector<std::pair<CollKey, uint32_t>> own_colls;
  for (const ShareCollective& c : share.collectives) own_colls.push_back({{c.communicator, c.owner, c.sequence}, c.row.value});
  std::sort(own_colls.begin(), own_colls.end());
  std::vector<GhostEvent> ghosts;
  for (const WireEnd& w : their_ends) {
    const EndKey partner{w.communicator, w.sender, w.receiver, w.tag, w.key, w.k, w.is_send == 0};
    auto it = std::lower_bound(own_ends.begin(), own_ends.end(), std::make_pair(partner, 0u));
    if (it == own_ends.end() || it->first != partner) continue;  // the other share's end is unmatched
    const uint32_t l = w.is_send ? w.sender : w.receiver;
    const ShareEndEvents& ev = w.events;
    ghosts.push_back({l, ev.order, ev.time, w.is_send ? EventKind::kSend : EventKind::kRecv, it->second});
    // A synchronous send's call comes with it, and its Leave is then the completion itself.
    if (ev.rendezvous_order != kNoEvent && ev.rendezvous_order != ev.leave_order)
      ghosts.push_back({l, ev.rendezvous_order, ev.rendezvous_time,
                        w.is_send ? EventKind::kSendComplete : EventKind::kRecvPost, it->second});
    if (ev.enter_order != kNoEvent) {
      ghosts.push_back({l, ev.enter_order, ev.enter_time, EventKind::kEnter, ev.call.value});
      ghosts.push_back({l, ev.leave_order, ev.leave_time, EventKind::kLeave, ev.call.value});
    }
  }
  for (const WireMember& w : their_members) {
    const CollKey key{w.communicator, w.owner, w.sequence};
    auto it = std::lower_bound(own_colls.begin(), own_colls.end(), std::make_pair(key, 0u));
    if (it == own_colls.end() || it->first != key) continue;  // an instance this share is not in
    ghosts.push_back({w.location, w.begin_order, w.begin_time, EventKind::kCollBegin, it->second, w.bytes_sent,
                      w.bytes_received});
    ghosts.push_back({w.location, w.end_order, w.end_time, EventKind::kCollEnd, it->second});
  }
  std::sort(ghosts.begin(), ghosts.end(), [](const GhostEvent& a, const GhostEvent& b) {
    return std::tie(a.location, a.order) < std::tie(b.location, b.order);
  });
  // One call holding a send and a receive to this share (MPI_Sendrecv) is told twice: one event.
  // Two different events at one position (one call's Enter standing for the posting of several
  // receives, which the owner finds by their call alone) are not modelled over shares: an error,
  // never one of them kept by chance.
  for (size_t i = 1; i < ghosts.size(); ++i) {
    const GhostEvent& a = ghosts[i - 1];
    const GhostEvent& b = ghosts[i];
    if (a.location == b.location && a.order == b.order && (a.kind != b.kind || a.arg != b.arg))
      return Unimplemented(fmt::format(
          "location {}: event {} ends or posts several messages other shares hold (a call of several receives "
          "or sends without requests); grainscope-mpi cannot split it yet: analyse the trace with grainscope",
          a.location, a.order));
  }
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end(),
                           [](const GhostEvent& a, const GhostEvent& b) {
                             return a.location == b.location && a.order == b.order;
                           }),
               ghosts.end());
  return ghosts;
}

// What the other shares sent this one (`in`, by share): the ghost events they make.
Result<std::vector<GhostEvent>> GhostsFrom(const TraceShare& share, const ShareMap& map, uint32_t self,
                                           const std::vector<std::string>& in) {
  std::vector<WireEnd> their_ends;
  std::vector<WireMember> their_members;
  for (uint32_t k = 0; k < in.size(); ++k) {
    std::string_view blob = in[k];
    if (!wire::TakeAll(blob, their_ends) || !wire::TakeAll(blob, their_members) || !blob.empty())
      return DataLoss(fmt::format("share {}: a damaged message from share {} ({} bytes)", self, k, in[k].size()));
  }
  const size_t locations = map.share_of_location.size();
  for (const WireEnd& w : their_ends)
    if (w.sender >= locations || w.receiver >= locations)
      return DataLoss(fmt::format("share {}: a message end between locations {} and {} of {}", self, w.sender,
                                  w.receiver, locations));
  for (const WireMember& w : their_members)
    if (w.location >= locations)
      return DataLoss(fmt::format("share {}: a collective member on location {} of {}", self, w.location, locations));
  return GhostsOf(share, their_ends, their_members);
}

}  // namespace

Result<std::vector<GhostEvent>> CompleteShare(const TraceShare& share, const ShareFacts& facts, const ShareMap& map,
                                              ShareExchange& exchange) {
  const uint32_t self = exchange.index();
  GS_ASSIGN_OR_RETURN(std::vector<std::string> in,
                      exchange.AllToAll(Outgoing(share, facts, map, self, exchange.count())));
  Result<std::vector<GhostEvent>> ghosts = GhostsFrom(share, map, self, in);
  // Every share goes on to the sweeps only when every share is complete (one that is not would
  // leave the others waiting for its values).
  GS_RETURN_IF_ERROR(AgreeOnStatus(ghosts.status(), exchange));
  return ghosts;
}

}  // namespace grainscope
