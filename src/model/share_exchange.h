// How the shares of a trace (model/trace_share.h) complete each other while they are read: each
// share tells the others the facts of its ends that cross shares, and adds the ends the others
// tell it as ghost events on the other shares' locations. After that a share's trace holds every
// message one of its locations sent or received with both ends (the remote end a ghost event at
// its measured time) and every collective one of its locations took part in with all members, so
// the model's matching, the happens-before graph and the measured waits are those of the whole
// trace for the share's own locations. A ghost event stands for an event of another share: the
// analyses take its values from that share (grainscope-mpi), never compute them.
//
// The ghost events of a location are in the order of that location's own events (`order`: the
// owner's event position), so that an owner that sends its values for them in program order
// fills them in order.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "base/status.h"
#include "base/wire.h"
#include "model/trace_share.h"

namespace grainscope {

// The transport between shares: one blob to each share, all at once (MPI_Alltoallv, or threads).
class ShareExchange {
 public:
  virtual ~ShareExchange() = default;
  virtual uint32_t index() const = 0;
  virtual uint32_t count() const = 0;
  // Sends out[k] to share k (out.size() == count()) and returns what every share sent this one,
  // by share. Every share calls it the same number of times.
  virtual Result<std::vector<std::string>> AllToAll(std::vector<std::string> out) = 0;
  // Sends `blob` to share `to` without waiting for it to be received; blobs from one share to
  // another arrive in the order sent.
  virtual Status Send(uint32_t to, std::string blob) = 0;
  // The next blob any share sent this one, with its sender; waits for one.
  virtual Result<std::pair<uint32_t, std::string>> Receive() = 0;

  // Whether every share has failed with the status this one failed with (AgreeOnStatus): then no
  // share waits for another, and one of them can say why for all.
  bool failure_agreed() const { return failure_agreed_; }

 private:
  friend Status AgreeOnStatus(const Status& mine, ShareExchange& exchange);
  bool failure_agreed_ = false;
};

// Shares that are threads of one process (tests; an in-process parallel mode): one object shared
// by `count` participants, each through its own Member.
class LocalShareExchange {
 public:
  explicit LocalShareExchange(uint32_t count)
      : count_(count), slots_(count, std::vector<std::string>(count)), inboxes_(count) {}
  class Member : public ShareExchange {
   public:
    Member(LocalShareExchange& all, uint32_t index) : all_(all), index_(index) {}
    uint32_t index() const override { return index_; }
    uint32_t count() const override { return all_.count_; }
    Result<std::vector<std::string>> AllToAll(std::vector<std::string> out) override;
    Status Send(uint32_t to, std::string blob) override;
    Result<std::pair<uint32_t, std::string>> Receive() override;

   private:
    LocalShareExchange& all_;
    uint32_t index_;
  };

 private:
  uint32_t count_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::vector<std::string>> slots_;  // slots_[to][from]
  uint32_t arrived_ = 0, taken_ = 0;
  bool draining_ = false;  // every share has put its blobs in; each takes its own
  std::vector<std::deque<std::pair<uint32_t, std::string>>> inboxes_;  // per share: (from, blob)
};

// Every share's `rows` to every share (an all-gather): all shares' rows, share by share, the same
// on every share. A damaged blob is an error naming `what` and the share that sent it.
template <class T>
Result<std::vector<T>> AllGather(const std::vector<T>& rows, ShareExchange& exchange, std::string_view what) {
  std::string blob;
  wire::PutAll(blob, rows);
  GS_ASSIGN_OR_RETURN(std::vector<std::string> all, exchange.AllToAll(std::vector<std::string>(exchange.count(), blob)));
  std::vector<T> out;
  for (uint32_t k = 0; k < all.size(); ++k) {
    std::string_view b = all[k];
    if (!wire::TakeAll(b, out) || !b.empty())
      return DataLoss(fmt::format("share {}: damaged {} from share {}", exchange.index(), what, k));
  }
  return out;
}

// Every share's outcome of a step, so that all go on or all stop: `mine` when every share
// succeeded, else the first failed share's status (then failure_agreed()). Every share calls it,
// after the same steps.
Status AgreeOnStatus(const Status& mine, ShareExchange& exchange);

// The facts of a share's listed ends (TraceShare::messages and ::collectives, in their order).
// A message end: its event; where the rendezvous rule (model/rendezvous.h) puts the end's side of
// the edge, found by its owner on its own events (a send's completion: its request's, else its
// call's Leave; a receive's posting: its request's, else its call's Enter), which the other share
// adds as a kSendComplete or kRecvPost ghost so that it never looks for the call itself; and for
// a synchronous send (MPI_Ssend), the call, which makes a message rendezvous whatever its size.
// Each as (position on its location, time); kNoEvent: none.
struct ShareEndEvents {
  uint32_t order = 0;
  TimeNs time = 0;
  uint32_t rendezvous_order = kNoEvent;
  TimeNs rendezvous_time = 0;
  uint32_t enter_order = kNoEvent, leave_order = kNoEvent;  // a synchronous send's call, or neither
  TimeNs enter_time = 0, leave_time = 0;
  RegionId call;
};
// A collective's own members.
struct ShareMember {
  uint32_t location = 0;
  TimeNs begin_time = 0, end_time = 0;
  uint32_t begin_order = 0, end_order = 0;
  uint64_t bytes_sent = 0, bytes_received = 0;
};
struct ShareFacts {
  std::vector<ShareEndEvents> messages;
  std::vector<std::vector<ShareMember>> members;
};

// An event of another share's location this share adds: kSend, kRecv, kSendComplete, kRecvPost
// with arg the message row; kEnter / kLeave of the call holding one, arg its region; kCollBegin /
// kCollEnd with arg the collective row (bytes for a begin).
struct GhostEvent {
  uint32_t location = 0;
  uint32_t order = 0;
  TimeNs time = 0;
  EventKind kind = EventKind::kSend;
  uint32_t arg = 0;
  uint64_t bytes_sent = 0, bytes_received = 0;
};

// Where a location's share is (every share knows every share's locations), and a communicator's
// member locations (by the number ShareMessageEnd / ShareCollective use).
struct ShareMap {
  std::vector<uint32_t> share_of_location;
  std::vector<std::vector<uint32_t>> communicator_members;  // by communicator number
};

// Tells the other shares this share's facts and returns the ghost events their facts make, sorted
// by (location, order), one per (location, order). A listed end the other shares do not complete
// stays unmatched.
Result<std::vector<GhostEvent>> CompleteShare(const TraceShare& share, const ShareFacts& facts, const ShareMap& map,
                                              ShareExchange& exchange);

}  // namespace grainscope
