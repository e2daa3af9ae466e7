// Writes the small traces the golden tests share (tests/golden/inputs/README.md), each in OTF2,
// .gst and Chrome JSON, with grainscope's own TraceScript (model/trace_script.h) and writers:
//
//   collectives.*  4 ranks, one collective of every shape on MPI_COMM_WORLD and on two
//                  sub-communicators, roots other than rank 0, every member arriving at its own time
//   skew.*         3 ranks whose clocks disagree: a receive that completes before its send begins,
//                  a late sender, a late receiver (rendezvous), one whose receiver enters after the
//                  sender left, and collectives left by a member before the last one entered
//   threads.*      4 threads that synchronise (model/thread_sync.h): the main thread creates three
//                  workers (ids 1-3); all meet at a barrier after W(1 + 2t) of work (W = 10 ns, so
//                  the waits there are 60, 40 and 20 ns); each holds a lock 10 ns in turn (thread
//                  t acquires at 90 + 10t); thread 1 waits on a condition the main thread signals
//                  at 170 after its work; the main thread joins the workers
//
//   make_inputs OUTDIR
// The ctest `golden_inputs_reproducible` runs it into a temporary directory and compares every file
// byte for byte with the committed ones, so the inputs and this program cannot drift apart.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "format/trace_writer.h"
#include "model/trace_script.h"

namespace grainscope {
namespace {

// The MPI call region of each collective operation.
std::string CallName(CollectiveOp op) {
  static const std::map<CollectiveOp, std::string> names = {
      {CollectiveOp::kBarrier, "MPI_Barrier"},     {CollectiveOp::kBroadcast, "MPI_Bcast"},
      {CollectiveOp::kReduce, "MPI_Reduce"},       {CollectiveOp::kAllreduce, "MPI_Allreduce"},
      {CollectiveOp::kGather, "MPI_Gather"},       {CollectiveOp::kScatter, "MPI_Scatter"},
      {CollectiveOp::kAllgather, "MPI_Allgather"}, {CollectiveOp::kAlltoall, "MPI_Alltoall"}};
  return names.at(op);
}

// One collective instance on `comm` (invalid: world): `times` holds each member's (enter,
// leave), in `members` order; `root` is a rank or -1.
void Collective(TraceScript& s, CollectiveOp op, CommunicatorId comm, const std::vector<int>& members, int root,
                const std::vector<std::pair<TimeNs, TimeNs>>& times, uint64_t bytes) {
  const CollectiveId c = s.Collective(op, root, comm);
  for (size_t i = 0; i < members.size(); ++i) s.Join(members[i], c, times[i].first, times[i].second, CallName(op), bytes);
}

// Every member's (enter, leave) from a start time, per-member arrival delays and one leave time.
std::vector<std::pair<TimeNs, TimeNs>> Arrivals(TimeNs start, const std::vector<TimeNs>& delays, TimeNs leave) {
  std::vector<std::pair<TimeNs, TimeNs>> out;
  for (TimeNs d : delays) out.emplace_back(start + d, leave);
  return out;
}

Trace Collectives() {
  TraceScript s(4);
  const std::vector<int> all = {0, 1, 2, 3}, even = {0, 2}, odd = {1, 3};
  const CommunicatorId w, ce = s.Communicator("comm_even", even), co = s.Communicator("comm_odd", odd);
  for (int r = 0; r < 4; ++r) {
    s.Work(r, "MPI_Init", 0, 20 + 5 * r, RegionRole::kOther);  // where an MPI rank's timeline starts
    s.Work(r, "compute", 20 + 5 * r, 100 + 10 * r);
  }
  // Each step's members arrive at different times; the latest (or the root) decides the waits.
  Collective(s, CollectiveOp::kBarrier, w, all, -1, Arrivals(100, {10, 30, 20, 60}, 200), 0);
  Collective(s, CollectiveOp::kBroadcast, w, all, 2, Arrivals(200, {10, 20, 50, 5}, 300), 64);
  Collective(s, CollectiveOp::kBroadcast, w, all, 0, Arrivals(300, {40, 10, 0, 20}, 400), 64);
  Collective(s, CollectiveOp::kScatter, w, all, 3, Arrivals(400, {0, 30, 10, 45}, 500), 32);
  Collective(s, CollectiveOp::kReduce, w, all, 1, Arrivals(500, {35, 5, 60, 20}, 600), 8);
  Collective(s, CollectiveOp::kGather, w, all, 2, Arrivals(600, {50, 25, 0, 70}, 700), 16);
  Collective(s, CollectiveOp::kAllreduce, w, all, -1, Arrivals(700, {0, 40, 20, 10}, 800), 8);
  Collective(s, CollectiveOp::kAllgather, w, all, -1, Arrivals(800, {25, 0, 55, 15}, 900), 16);
  Collective(s, CollectiveOp::kAlltoall, w, all, -1, Arrivals(900, {10, 20, 30, 0}, 1000), 32);
  // Sub-communicators: roots are the second member, so a root mistaken for member 0 shows.
  Collective(s, CollectiveOp::kBroadcast, ce, even, 2, Arrivals(1000, {5, 40}, 1100), 64);
  Collective(s, CollectiveOp::kReduce, co, odd, 3, Arrivals(1000, {45, 15}, 1100), 8);
  Collective(s, CollectiveOp::kAllreduce, ce, even, -1, Arrivals(1100, {30, 0}, 1200), 8);
  Collective(s, CollectiveOp::kGather, co, odd, 1, Arrivals(1100, {20, 50}, 1200), 16);
  Collective(s, CollectiveOp::kBarrier, co, odd, -1, Arrivals(1200, {0, 35}, 1300), 0);
  Collective(s, CollectiveOp::kScatter, ce, even, 2, Arrivals(1200, {10, 25}, 1300), 32);
  for (int r = 0; r < 4; ++r) s.Work(r, "compute", 1300, 1400 + 10 * r);
  return s.Finish();
}

Trace Skew() {
  TraceScript s(3);
  const CommunicatorId w;  // world
  const std::vector<int> all = {0, 1, 2};
  for (int r = 0; r < 3; ++r) s.Work(r, "MPI_Init", 0, 50 + 10 * r, RegionRole::kOther);
  // Rank 1 completes the receive (at 150) before rank 0 begins the send (at 200): clocks disagree.
  const MessageId early = s.Message(0, 1, 1, 8);
  s.Recv(1, early, 100, 150);
  s.Send(0, early, 200, 210);
  // A late sender: rank 2 waits from 300 until rank 1 sends at 350.
  const MessageId late_sender = s.Message(1, 2, 2, 8);
  s.Send(1, late_sender, 350, 355);
  s.Recv(2, late_sender, 300, 360);
  // A late receiver: a rendezvous send (1 MiB) entered at 400 waits until the receive at 450.
  const MessageId late_receiver = s.Message(0, 2, 3, 1 << 20);
  s.Send(0, late_receiver, 400, 480);
  s.Recv(2, late_receiver, 450, 490);
  // A rendezvous whose receiver enters (530) after the sender left (520): skew, not a wait.
  const MessageId skewed = s.Message(2, 1, 4, 1 << 20);
  s.Send(2, skewed, 500, 520);
  s.Recv(1, skewed, 530, 540);
  // Wait at N x N: rank 0 leaves (640) before rank 2, the latest, enters (650).
  Collective(s, CollectiveOp::kAllreduce, w, all, -1, {{600, 640}, {610, 660}, {650, 660}}, 8);
  // A barrier where the last to enter (rank 1, 720) also leaves first.
  Collective(s, CollectiveOp::kBarrier, w, all, -1, {{700, 740}, {720, 730}, {705, 750}}, 0);
  // Broadcast rooted at rank 1: rank 0 leaves (780) before the root enters (790).
  Collective(s, CollectiveOp::kBroadcast, w, all, 1, {{760, 780}, {790, 800}, {770, 805}}, 64);
  // Reduce rooted at rank 2: the root leaves (840) before the last sender, rank 0, enters (860).
  Collective(s, CollectiveOp::kReduce, w, all, 2, {{860, 870}, {815, 850}, {810, 840}}, 8);
  // Gather rooted at rank 0, in order: the root waits for rank 2, the last sender.
  Collective(s, CollectiveOp::kGather, w, all, 0, {{880, 950}, {900, 910}, {930, 940}}, 16);
  return s.Finish();
}

// Without TraceScript: its "world" communicator would make the .gst a directory of rank files.
class ThreadScript {
 public:
  explicit ThreadScript(int threads) {
    for (int t = 0; t < threads; ++t) locs_.push_back(b_.AddLocation("thread " + std::to_string(t), LocationKind::kThread, t));
  }
  TraceBuilder& builder() { return b_; }
  LocationId loc(int t) const { return locs_[t]; }
  void Work(int t, const std::string& name, TimeNs start, TimeNs stop) {
    auto [it, added] = regions_.try_emplace(name);
    if (added) it->second = b_.AddRegion(name, RegionRole::kFunction, static_cast<int64_t>(regions_.size() - 1));
    b_.Enter(locs_[t], start, it->second);
    b_.Leave(locs_[t], stop, it->second);
  }
  Trace Finish() {
    Result<Trace> t = b_.Finish();
    if (!t.ok()) std::fprintf(stderr, "make_inputs: threads: %s\n", std::string(t.status().message()).c_str());
    return t.ok() ? std::move(t).value() : Trace();
  }

 private:
  TraceBuilder b_{"script"};
  std::vector<LocationId> locs_;
  std::map<std::string, RegionId> regions_;
};

Trace Threads() {
  ThreadScript s(4);
  TraceBuilder& b = s.builder();
  constexpr uint64_t kBarrier = 0xb000, kLock = 0x1000, kCond = 0xc000;
  s.Work(0, "setup", 0, 10);
  for (uint64_t id = 1; id <= 3; ++id) b.Sync(s.loc(0), 10, SyncKind::kThreadCreate, id);
  for (int t = 0; t < 4; ++t) {
    const TimeNs arrive = 10 + 10 * (1 + 2 * t);
    if (t > 0) b.Sync(s.loc(t), 10 + t, SyncKind::kThreadBegin, static_cast<uint64_t>(t));
    s.Work(t, "work", t == 0 ? 10 : 10 + t, arrive);
    b.Sync(s.loc(t), arrive, SyncKind::kBarrierEnter, kBarrier, 4);
    b.Sync(s.loc(t), 80, SyncKind::kBarrierLeave, kBarrier);
    b.Sync(s.loc(t), 90, SyncKind::kLockRequest, kLock);
    b.Sync(s.loc(t), 90 + 10 * t, SyncKind::kLockAcquired, kLock);
    s.Work(t, "critical", 90 + 10 * t, 100 + 10 * t);
    b.Sync(s.loc(t), 100 + 10 * t, SyncKind::kLockRelease, kLock);
  }
  s.Work(0, "work", 100, 170);
  b.Sync(s.loc(0), 170, SyncKind::kCondSignal, kCond);
  b.Sync(s.loc(1), 115, SyncKind::kCondWaitBegin, kCond);
  b.Sync(s.loc(1), 171, SyncKind::kCondWaitEnd, kCond);
  s.Work(1, "work", 171, 178);
  s.Work(2, "work", 120, 179);
  s.Work(3, "work", 130, 180);
  for (int t = 1; t <= 3; ++t) b.Sync(s.loc(t), 179 + t, SyncKind::kThreadEnd, static_cast<uint64_t>(t));
  for (uint64_t id = 1; id <= 3; ++id) {
    b.Sync(s.loc(0), id == 1 ? 175 : static_cast<TimeNs>(179 + id), SyncKind::kThreadJoinBegin, id);
    b.Sync(s.loc(0), static_cast<TimeNs>(180 + id), SyncKind::kThreadJoinEnd, id);
  }
  return s.Finish();
}

bool Write(const Trace& trace, const std::string& dir, const std::string& name) {
  for (const char* ext : {".otf2", ".gst", ".json"}) {
    const Status s = WriteTrace(trace, dir + "/" + name + ext, "auto", OutputOptions{true, {}});
    if (!s.ok()) {
      std::fprintf(stderr, "make_inputs: %s%s: %s\n", name.c_str(), ext, std::string(s.message()).c_str());
      return false;
    }
  }
  return true;
}

}  // namespace
}  // namespace grainscope

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_inputs OUTDIR\n");
    return 2;
  }
  const bool ok = grainscope::Write(grainscope::Collectives(), argv[1], "collectives") &&
                  grainscope::Write(grainscope::Skew(), argv[1], "skew") &&
                  grainscope::Write(grainscope::Threads(), argv[1], "threads");
  return ok ? 0 : 1;
}
