// The sweeps over one share of a trace (model/trace_share.h, model/share_exchange.h): the share's
// own locations are swept here; a ghost location's events (another share's ends of this share's
// messages and collectives) take the values their owner computes, which it sends in program order
// as it computes them. The sweep (sweep.h) is written once for both: NoShares below makes it the
// serial sweep at no cost, SweepShares the sweep of one share.
//
// Progress: a share sweeps until none of its locations can go on, sends the values it computed
// for other shares, then waits for values from the others. A trace whose happens-before graph has
// no cycle always lets some share go on. One with a cycle (a damaged trace) would leave every
// share waiting: share 0 detects that no share can go on any more with Mattern's four-counter
// method (waves of probes, each share answering with the blobs of values it sent and received;
// two waves in a row with equal counts, every blob received, mean none is in flight), and ends
// the sweep everywhere; a share with locations not done then reports the cycle as the serial
// sweep does. Finished shares wait for that end too, so one sweep's blobs never meet the next
// step's.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "model/hb_graph.h"
#include "model/share_exchange.h"

namespace grainscope {

// The serial sweep: every location is its own, nothing crosses.
struct NoShares {
  static constexpr bool Own(uint32_t) { return true; }
  void Export(LocationId, EventIndex, TimeNs) {}
  template <class Apply>
  Result<bool> Import(Apply&&) { return false; }
};

class SweepShares {
 public:
  // `g` is the share's graph (its trace completed with ghost events).
  SweepShares(const HbGraph& g, const TraceShare& share, ShareExchange& exchange);

  bool Own(uint32_t l) const { return share_.locations.Holds(l); }

  // The own event that share `to` holds as its `k`-th ghost event on location `l` (ghost events
  // are the exports, in order: how shares name each other's events), or kNoEvent.
  EventIndex ExportedEvent(LocationId l, uint32_t to, uint32_t k);

  // Turns round for the backward sweep, after the forward one: values then go and come in reverse
  // program order.
  void Backward();

  // Event e of own location `l` has value v: queued for every share that holds it as a ghost.
  void Export(LocationId l, EventIndex e, TimeNs v) {
    if (e != next_export_[l.value]) [[likely]] return;
    QueueExports(l, e, v);
  }

  // Sends what is queued; then waits for the next blob of values and calls apply(ghost location,
  // value) for each value in it, in order. False when the sweep has ended on every share (every
  // share finished, or none can go on).
  // A share that fails here tells every other share, which fails with its reason: no share is
  // left waiting for it.
  template <class Apply>
  Result<bool> Import(Apply&& apply) {
    Result<bool> more = ImportValues(apply);
    if (!more.ok()) return Fail(more.status());
    return more;
  }

  // Outside a sweep: every own event other shares hold as a ghost sends its value in `flat` (per
  // flat event of `g`, the share's graph) to them, and every ghost event takes its owner's value
  // there, in one all-to-all (the clock correction's final times, which a sweep did not make).
  Status ExchangeValues(const HbGraph& g, std::vector<TimeNs>& flat);

  // After the sweep: whether every ghost event got its value (not so when a share stopped at a
  // cycle of the happens-before graph).
  bool complete() const { return ghosts_left_ == 0; }

 private:
  template <class Apply>
  Result<bool> ImportValues(Apply&& apply) {
    GS_RETURN_IF_ERROR(Flush());
    GS_ASSIGN_OR_RETURN(auto blob, NextValues());
    if (!blob) return false;
    const std::string_view b = std::string_view(blob->second).substr(sizeof(Header));
    if (b.size() % sizeof(Value) != 0) return DataLoss(BadBlob(blob->first, blob->second.size()));
    for (size_t at = 0; at < b.size(); at += sizeof(Value)) {
      Value v;
      std::memcpy(&v, b.data() + at, sizeof v);
      if (v.location >= time_.size() || share_.share_of_location[v.location] != blob->first || Own(v.location) ||
          ghosts_left_ == 0)
        return DataLoss(BadBlob(blob->first, blob->second.size()));
      // Each value names its event's time: a share whose ghost events are not its owner's exports
      // (traces the shares read differently) is an error, never a wrong value.
      const uint32_t next = backward_ ? ghost_next_[v.location] - 1 : ghost_next_[v.location];
      if (next >= time_[v.location].size() || time_[v.location][next] != v.time)
        return DataLoss(Disagree(blob->first, v.location, next, v.time));
      ghost_next_[v.location] = backward_ ? next : next + 1;
      --ghosts_left_;
      apply(LocationId(v.location), v.value);
    }
    return true;
  }

  struct Value {
    uint32_t location;
    uint32_t reserved;
    TimeNs value;
    TimeNs time;  // the event's time, checked by the receiver
  };
  // Every blob's first bytes: what it is, and (probes and reports) the wave it belongs to.
  enum class Blob : uint32_t { kValues, kProbe, kReport, kEnd, kFail };
  struct Header {
    Blob kind;
    uint32_t wave;  // kFail: the failure's StatusCode, its message after the header
  };
  struct Report {  // after a kReport header
    uint64_t sent, received;
  };
  // The next blob of values, after answering and making the probes and reports that come first
  // (the four-counter method above); nullopt once the sweep has ended.
  Result<std::optional<std::pair<uint32_t, std::string>>> NextValues();
  Status StartWave();
  Status EndWave();
  Status SendBlob(uint32_t to, std::string blob);
  // This share's failure `s`, named with its share, told to the others (unless it is another
  // share's, received): returned.
  Status Fail(const Status& s);
  void AddMessageExports(const Trace& t, LocationId l);
  [[gnu::noinline]] void QueueExports(LocationId l, EventIndex e, TimeNs v);
  std::string Disagree(uint32_t from, uint32_t l, uint32_t ghost, TimeNs theirs) const;
  Status Flush();
  std::string BadBlob(uint32_t from, size_t bytes) const;

  const TraceShare& share_;
  ShareExchange& exchange_;
  // Per own location: (event, share) it exports, by event; the next event that exports (backward:
  // export_pos_ is one past it).
  std::vector<std::vector<std::pair<EventIndex, uint32_t>>> exports_;
  std::vector<uint32_t> export_pos_;
  std::unordered_map<uint64_t, std::vector<EventIndex>> exported_to_;  // ExportedEvent's, by (l, to)
  std::vector<EventIndex> next_export_;
  std::vector<std::string> outbox_;  // per share
  std::vector<std::span<const TimeNs>> time_;  // per location
  // Per ghost location: its next event to receive (backward: one past it).
  std::vector<EventIndex> ghost_next_;
  uint64_t ghosts_left_ = 0;
  bool backward_ = false;
  // The end of the sweep: blobs of values this share sent and received; share 0's waves.
  uint64_t sent_ = 0, received_ = 0;
  bool ended_ = false;
  bool told_ = false;  // a failure was told (or received): not told again
  uint32_t wave_ = 0;            // the current wave's number (share 0)
  bool wave_open_ = false;
  uint32_t reports_ = 0;         // of the current wave
  Report wave_sum_{}, last_wave_{~0ull, 0};
};

// Every share goes on after a sweep only when every share's sweep succeeded (`swept`) and left no
// ghost event without its value (a cycle of the happens-before graph stops some shares with an
// error and leaves others without some values): the first failure, on every share.
Status AgreeOnSweep(const Status& swept, const SweepShares& shares, ShareExchange& exchange);

}  // namespace grainscope
