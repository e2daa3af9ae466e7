#include "analysis/replay/sweep_shares.h"

#include <algorithm>

#include <fmt/format.h>

#include "base/wire.h"
#include "model/rendezvous.h"

namespace grainscope {

SweepShares::SweepShares(const HbGraph& g, const TraceShare& share, ShareExchange& exchange)
    : share_(share), exchange_(exchange), exports_(g.location_count()), export_pos_(g.location_count(), 0),
      next_export_(g.location_count(), kNoEvent), outbox_(exchange.count()), ghost_next_(g.location_count(), 0) {
  const Trace& t = g.trace();
  for (uint32_t l = 0; l < g.location_count(); ++l) time_.push_back(t.events(LocationId(l)).time);
  for (uint32_t l = 0; l < g.location_count(); ++l) {
    if (!Own(l)) {
      ghosts_left_ += t.events(LocationId(l)).size();
      continue;
    }
    AddMessageExports(t, LocationId(l));
  }
  // A collective's own members go to every other share with a member in it.
  const CollectiveTable& coll = t.collectives();
  std::vector<uint32_t> shares;
  for (uint32_t c = 0; c < coll.size(); ++c) {
    shares.clear();
    for (uint32_t m = coll.first_member[c]; m < coll.first_member[c + 1]; ++m)
      if (!Own(coll.member_location[m].value)) shares.push_back(share.share_of_location[coll.member_location[m].value]);
    if (shares.empty()) continue;
    std::sort(shares.begin(), shares.end());
    shares.erase(std::unique(shares.begin(), shares.end()), shares.end());
    for (uint32_t m = coll.first_member[c]; m < coll.first_member[c + 1]; ++m) {
      const uint32_t l = coll.member_location[m].value;
      if (!Own(l)) continue;
      for (uint32_t s : shares) {
        exports_[l].push_back({coll.member_begin[m], s});
        exports_[l].push_back({coll.member_end[m], s});
      }
    }
  }
  for (uint32_t l = 0; l < exports_.size(); ++l) {
    std::sort(exports_[l].begin(), exports_[l].end());
    exports_[l].erase(std::unique(exports_[l].begin(), exports_[l].end()), exports_[l].end());
    if (!exports_[l].empty()) next_export_[l] = exports_[l].front().first;
  }
}

// The events of own location `l` that another share holds as ghosts of its messages' ends
// (model/share_exchange.h, ShareEndEvents): each end, its side of a rendezvous edge, and a
// synchronous send's call.
void SweepShares::AddMessageExports(const Trace& t, LocationId l) {
  const MessageTable& msgs = t.messages();
  const EventColumns& ev = t.events(l);
  std::vector<std::pair<uint32_t, uint32_t>> ends;  // (event, message) of ends whose partner is elsewhere
  for (EventIndex e = 0; e < ev.size(); ++e) {
    const uint32_t m = ev.arg[e];
    const bool send = ev.kind[e] == EventKind::kSend, recv = ev.kind[e] == EventKind::kRecv;
    if ((send && msgs.recv_event[m] != kNoEvent && !Own(msgs.receiver[m].value)) ||
        (recv && msgs.send_event[m] != kNoEvent && !Own(msgs.sender[m].value)))
      ends.push_back({e, m});
  }
  if (ends.empty()) return;
  std::vector<EventIndex> request(msgs.size(), kNoEvent);
  for (EventIndex e = 0; e < ev.size(); ++e)
    if (ev.kind[e] == EventKind::kSendComplete || ev.kind[e] == EventKind::kRecvPost) request[ev.arg[e]] = e;
  for (const auto& [e, m] : ends) {
    const bool send = ev.kind[e] == EventKind::kSend;
    const uint32_t to = share_.share_of_location[(send ? msgs.receiver[m] : msgs.sender[m]).value];
    exports_[l.value].push_back({e, to});
    const EventIndex enter = EnclosingEnter(ev.kind, e), leave = EnclosingLeave(ev.kind, e);
    const EventIndex side = request[m] != kNoEvent ? request[m] : send ? leave : enter;
    if (side != kNoEvent) exports_[l.value].push_back({side, to});
    if (send && enter != kNoEvent && leave != kNoEvent && t.region(RegionId(ev.arg[enter])).synchronous_send) {
      exports_[l.value].push_back({enter, to});
      exports_[l.value].push_back({leave, to});
    }
  }
}

EventIndex SweepShares::ExportedEvent(LocationId l, uint32_t to, uint32_t k) {
  if (l.value >= exports_.size()) return kNoEvent;
  std::vector<EventIndex>& events = exported_to_[uint64_t{l.value} << 32 | to];
  if (events.empty())
    for (const auto& [e, share] : exports_[l.value])
      if (share == to) events.push_back(e);
  return k < events.size() ? events[k] : kNoEvent;
}

Status SweepShares::ExchangeValues(const HbGraph& g, std::vector<TimeNs>& flat) {
  std::vector<std::string> out(exchange_.count());
  for (uint32_t l = 0; l < exports_.size(); ++l)
    for (const auto& [e, to] : exports_[l]) wire::Put(out[to], Value{l, 0, flat[g.flat(LocationId(l), e)], time_[l][e]});
  GS_ASSIGN_OR_RETURN(std::vector<std::string> in, exchange_.AllToAll(std::move(out)));
  std::vector<EventIndex> next(time_.size(), 0);  // per ghost location: its next event
  for (uint32_t k = 0; k < in.size(); ++k) {
    std::string_view b = in[k];
    Value v;
    while (!b.empty()) {
      if (!wire::Take(b, v) || v.location >= time_.size() || share_.share_of_location[v.location] != k ||
          Own(v.location) || next[v.location] >= time_[v.location].size())
        return DataLoss(BadBlob(k, in[k].size()));
      const EventIndex e = next[v.location]++;
      if (time_[v.location][e] != v.time) return DataLoss(Disagree(k, v.location, e, v.time));
      flat[g.flat(LocationId(v.location), e)] = v.value;
    }
  }
  for (uint32_t l = 0; l < time_.size(); ++l)
    if (!Own(l) && next[l] != time_[l].size())
      return DataLoss(fmt::format("share {} of {}: location {} has ghost events no share sent a value for",
                                  exchange_.index(), exchange_.count(), l));
  return OkStatus();
}

Status AgreeOnSweep(const Status& swept, const SweepShares& shares, ShareExchange& exchange) {
  Status mine = swept;
  if (mine.ok() && !shares.complete())
    mine = Internal(fmt::format("share {} of {}: the sweep ended without every value from the other shares",
                                exchange.index(), exchange.count()));
  return AgreeOnStatus(mine, exchange);
}

void SweepShares::Backward() {
  backward_ = true;
  ended_ = wave_open_ = false;
  reports_ = 0;
  last_wave_ = {~0ull, 0};
  ghosts_left_ = 0;
  for (uint32_t l = 0; l < exports_.size(); ++l) {
    if (!Own(l)) {
      ghost_next_[l] = static_cast<EventIndex>(time_[l].size());
      ghosts_left_ += time_[l].size();
      continue;
    }
    export_pos_[l] = static_cast<uint32_t>(exports_[l].size());
    next_export_[l] = exports_[l].empty() ? kNoEvent : exports_[l].back().first;
  }
}

void SweepShares::QueueExports(LocationId l, EventIndex e, TimeNs v) {
  const std::vector<std::pair<EventIndex, uint32_t>>& mine = exports_[l.value];
  uint32_t& pos = export_pos_[l.value];
  const Value value{l.value, 0, v, time_[l.value][e]};
  auto queue = [&](uint32_t share) {
    std::string& out = outbox_[share];
    if (out.empty()) {
      const Header h{Blob::kValues, 0};
      out.append(reinterpret_cast<const char*>(&h), sizeof h);
    }
    out.append(reinterpret_cast<const char*>(&value), sizeof value);
  };
  if (backward_) {
    for (; pos > 0 && mine[pos - 1].first == e; --pos) queue(mine[pos - 1].second);
    next_export_[l.value] = pos > 0 ? mine[pos - 1].first : kNoEvent;
    return;
  }
  for (; pos < mine.size() && mine[pos].first == e; ++pos) queue(mine[pos].second);
  next_export_[l.value] = pos < mine.size() ? mine[pos].first : kNoEvent;
}

Status SweepShares::Flush() {
  for (uint32_t s = 0; s < outbox_.size(); ++s) {
    if (outbox_[s].empty()) continue;
    GS_RETURN_IF_ERROR(exchange_.Send(s, std::move(outbox_[s])));
    outbox_[s].clear();
    ++sent_;
  }
  return OkStatus();
}

Status SweepShares::SendBlob(uint32_t to, std::string blob) { return exchange_.Send(to, std::move(blob)); }

Status SweepShares::Fail(const Status& s) {
  if (told_) return s;
  told_ = true;
  const uint32_t count = exchange_.count(), self = exchange_.index();
  const Status mine = count == 1 ? s : Status(s.code(), fmt::format("share {} of {}: {}", self, count, s.message()));
  std::string fail;
  wire::Put(fail, Header{Blob::kFail, static_cast<uint32_t>(mine.code())});
  fail += mine.message();
  for (uint32_t k = 0; k < count; ++k)
    if (k != self) (void)SendBlob(k, fail);  // best effort: this share fails whatever they get
  return mine;
}

// Share 0, with nothing to do: asks every other share for its counts.
Status SweepShares::StartWave() {
  ++wave_;
  wave_open_ = true;
  reports_ = 0;
  wave_sum_ = {sent_, received_};
  std::string probe;
  wire::Put(probe, Header{Blob::kProbe, wave_});
  for (uint32_t k = 1; k < exchange_.count(); ++k) GS_RETURN_IF_ERROR(SendBlob(k, probe));
  return OkStatus();
}

// Every share answered: the sweep has ended when every blob sent was received, in this wave and
// the one before, with the same counts (nothing happened in between).
Status SweepShares::EndWave() {
  wave_open_ = false;
  const bool quiet = wave_sum_.sent == wave_sum_.received && wave_sum_.sent == last_wave_.sent &&
                     wave_sum_.received == last_wave_.received;
  last_wave_ = wave_sum_;
  if (!quiet) return OkStatus();
  std::string end;
  wire::Put(end, Header{Blob::kEnd, wave_});
  for (uint32_t k = 1; k < exchange_.count(); ++k) GS_RETURN_IF_ERROR(SendBlob(k, end));
  ended_ = true;
  return OkStatus();
}

Result<std::optional<std::pair<uint32_t, std::string>>> SweepShares::NextValues() {
  const uint32_t count = exchange_.count(), self = exchange_.index();
  if (count == 1) ended_ = true;
  while (!ended_) {
    if (self == 0 && !wave_open_) GS_RETURN_IF_ERROR(StartWave());
    GS_ASSIGN_OR_RETURN(auto blob, exchange_.Receive());
    std::string_view b = blob.second;
    Header h;
    if (!wire::Take(b, h)) return DataLoss(BadBlob(blob.first, blob.second.size()));
    switch (h.kind) {
      case Blob::kValues:
        ++received_;
        return std::optional(std::move(blob));
      case Blob::kProbe: {
        if (!b.empty()) return DataLoss(BadBlob(blob.first, blob.second.size()));
        std::string report;
        wire::Put(report, Header{Blob::kReport, h.wave});
        wire::Put(report, Report{sent_, received_});
        GS_RETURN_IF_ERROR(SendBlob(blob.first, std::move(report)));
        break;
      }
      case Blob::kReport: {
        Report r;
        if (self != 0 || h.wave != wave_ || !wave_open_ || !wire::Take(b, r) || !b.empty())
          return DataLoss(BadBlob(blob.first, blob.second.size()));
        wave_sum_.sent += r.sent;
        wave_sum_.received += r.received;
        if (++reports_ == count - 1) GS_RETURN_IF_ERROR(EndWave());
        break;
      }
      case Blob::kEnd:
        if (!b.empty()) return DataLoss(BadBlob(blob.first, blob.second.size()));
        ended_ = true;
        break;
      case Blob::kFail:  // another share failed (its message names it): this one stops too
        told_ = true;
        if (h.wave == 0 || h.wave > static_cast<uint32_t>(StatusCode::kInternal))
          return DataLoss(BadBlob(blob.first, blob.second.size()));
        return Status(static_cast<StatusCode>(h.wave), std::string(b));
      default: return DataLoss(BadBlob(blob.first, blob.second.size()));
    }
  }
  return std::optional<std::pair<uint32_t, std::string>>();
}

std::string SweepShares::Disagree(uint32_t from, uint32_t l, uint32_t ghost, TimeNs theirs) const {
  return fmt::format(
      "share {}: share {} sent a value for an event of location {} at {} ns where this share's ghost event "
      "{} is at {} ns: the shares disagree about the trace",
      exchange_.index(), from, l, theirs, ghost, ghost < time_[l].size() ? time_[l][ghost] : 0);
}

std::string SweepShares::BadBlob(uint32_t from, size_t bytes) const {
  return fmt::format("share {}: a damaged or unexpected blob of sweep values from share {} ({} bytes)",
                     exchange_.index(), from, bytes);
}

}  // namespace grainscope
