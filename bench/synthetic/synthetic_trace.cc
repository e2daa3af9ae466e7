#include "bench/synthetic/synthetic_trace.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "model/trace_builder.h"

namespace grainscope {
namespace {

// SplitMix64: tiny, fast, and the same sequence on every machine.
class Random {
 public:
  explicit Random(uint64_t seed) : state_(seed) {}
  uint64_t Next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Uniform() { return static_cast<double>(Next() >> 11) * (1.0 / 9007199254740992.0); }
  TimeNs Between(TimeNs lo, TimeNs hi) { return lo + static_cast<TimeNs>(Next() % static_cast<uint64_t>(hi - lo + 1)); }

 private:
  uint64_t state_;
};

// Builds the ring program of synthetic_trace.h round by round. Every duration comes from one
// random sequence in a fixed order (locations in turn, each event in program order), so the same
// seed gives the same trace: goldens and benchmarks depend on it, and any change to the order of
// the draws below changes every trace.
class RingGenerator {
 public:
  RingGenerator(const SyntheticOptions& o, uint32_t leaves)
      : o_(o), leaves_(leaves), b_("synthetic"), rng_(o.seed), clock_(o.locations, 0), send_time_(o.locations),
        msg_(o.locations) {}

  // The locations, the communicator and the regions; room for the events of `rounds` rounds.
  void Define(uint64_t rounds, uint64_t per_round) {
    for (uint32_t l = 0; l < o_.locations; ++l)
      locs_.push_back(b_.AddLocation("rank " + std::to_string(l), LocationKind::kRank, l));
    world_ = b_.AddCommunicator("MPI_COMM_WORLD", locs_);
    iteration_ = b_.AddRegion("iteration", RegionRole::kFunction, 0);
    solve_ = b_.AddRegion("solve", RegionRole::kFunction, 1);
    for (uint32_t i = 0; i < std::min<uint32_t>(leaves_, 8); ++i)
      leaf_.push_back(b_.AddRegion("kernel " + std::to_string(i), RegionRole::kFunction, 2 + i));
    send_ = b_.AddRegion("MPI_Send", RegionRole::kPointToPoint, 100);
    recv_ = b_.AddRegion("MPI_Recv", RegionRole::kPointToPoint, 101);
    barrier_ = b_.AddRegion("MPI_Barrier", RegionRole::kCollective, 102);
    b_.AddMetadata("generator", "grainscope synthetic");
    b_.AddMetadata("seed", std::to_string(o_.seed));
    const uint64_t barrier_events = o_.barrier_every ? 4 * (rounds / o_.barrier_every + 1) : 0;
    for (LocationId l : locs_) b_.Reserve(l, rounds * per_round + barrier_events);
  }

  // Round `r`: every location computes and sends to its right, then every location receives from
  // its left and ends the iteration; every barrier_every rounds a barrier follows.
  void Round(uint64_t r) {
    for (uint32_t l = 0; l < o_.locations; ++l) {
      Solve(l);
      Send(r, l);
    }
    for (uint32_t l = 0; l < o_.locations; ++l) Receive(l);
    if (o_.barrier_every > 0 && (r + 1) % o_.barrier_every == 0) Barrier();
  }

  Result<Trace> Finish() { return b_.Finish(); }

 private:
  static constexpr TimeNs kLatency = 1500;

  // The iteration begins with the solve region and its leaves; with probability late_fraction the
  // leaves take 4x longer (a late sender for the right neighbour).
  void Solve(uint32_t l) {
    const double scale = rng_.Uniform() < o_.late_fraction ? 4.0 : 1.0;
    TimeNs& t = clock_[l];
    b_.Enter(locs_[l], t, iteration_);
    t += rng_.Between(10, 50);
    b_.Enter(locs_[l], t, solve_);
    for (uint32_t i = 0; i < leaves_; ++i) {
      t += rng_.Between(5, 20);
      b_.Enter(locs_[l], t, leaf_[i % leaf_.size()]);
      t += static_cast<TimeNs>(scale * static_cast<double>(rng_.Between(200, 1200)));
      b_.Leave(locs_[l], t, leaf_[i % leaf_.size()]);
    }
    t += rng_.Between(5, 20);
    b_.Leave(locs_[l], t, solve_);
  }

  // The message of round `r` to the right neighbour, in an MPI_Send call.
  void Send(uint64_t r, uint32_t l) {
    TimeNs& t = clock_[l];
    MessageInfo info;
    info.sender = locs_[l];
    info.receiver = locs_[(l + 1) % o_.locations];
    info.tag = static_cast<int32_t>(r & 0x7fff);
    info.bytes = 1024 + 64 * (rng_.Next() % 64);
    info.communicator = world_;
    msg_[l] = b_.AddMessage(info);
    t += rng_.Between(20, 100);
    b_.Enter(locs_[l], t, send_);
    b_.Send(locs_[l], t, msg_[l]);
    send_time_[l] = t;
    t += rng_.Between(300, 900);
    b_.Leave(locs_[l], t, send_);
  }

  // The left neighbour's message, in an MPI_Recv call that ends no earlier than the send plus
  // kLatency (consistent clocks); then the iteration ends.
  void Receive(uint32_t l) {
    const uint32_t left = (l + o_.locations - 1) % o_.locations;
    TimeNs& t = clock_[l];
    t += rng_.Between(10, 40);
    b_.Enter(locs_[l], t, recv_);
    t = std::max(t + rng_.Between(200, 600), send_time_[left] + kLatency);
    b_.Recv(locs_[l], t, msg_[left]);
    b_.Leave(locs_[l], t, recv_);
    t += rng_.Between(5, 20);
    b_.Leave(locs_[l], t, iteration_);
  }

  // Every location arrives after a short delay; all leave after the last arrival.
  void Barrier() {
    const CollectiveId c = b_.AddCollective(CollectiveOp::kBarrier, world_, LocationId());
    TimeNs last = 0;
    for (uint32_t l = 0; l < o_.locations; ++l) {
      clock_[l] += rng_.Between(10, 40);
      last = std::max(last, clock_[l]);
    }
    for (uint32_t l = 0; l < o_.locations; ++l) {
      b_.Enter(locs_[l], clock_[l], barrier_);
      b_.CollBegin(locs_[l], clock_[l], c, 0, 0);
      clock_[l] = last + rng_.Between(1000, 3000);
      b_.CollEnd(locs_[l], clock_[l], c);
      b_.Leave(locs_[l], clock_[l], barrier_);
    }
  }

  const SyntheticOptions& o_;
  const uint32_t leaves_;
  TraceBuilder b_;
  Random rng_;
  std::vector<LocationId> locs_;
  CommunicatorId world_;
  RegionId iteration_, solve_, send_, recv_, barrier_;
  std::vector<RegionId> leaf_;  // at most 8 kernels, the leaves take them in turn
  std::vector<TimeNs> clock_;      // per location: the time of its next event
  std::vector<TimeNs> send_time_;  // per location: its send of this round
  std::vector<MessageId> msg_;     // per location: its message of this round
};

}  // namespace

Result<Trace> GenerateSyntheticTrace(const SyntheticOptions& o) {
  if (o.locations < 2) return InvalidArgument("a synthetic trace needs at least 2 locations");
  if (o.message_fraction <= 0 || o.message_fraction > 0.3)
    return InvalidArgument("message_fraction must be in (0, 0.3]");
  // Per round and location: 2 (iteration) + 2 (solve) + 2*leaves + 6 (send and receive calls)
  // events, 2 of them message events; barriers add 4 every barrier_every rounds.
  const uint32_t leaves = static_cast<uint32_t>(
      std::max(1.0, std::round((2.0 / o.message_fraction - 10.0) / 2.0)));
  const uint64_t per_round = 10 + 2 * leaves;
  const uint64_t rounds = std::max<uint64_t>(1, o.events / (per_round * o.locations));
  RingGenerator gen(o, leaves);
  gen.Define(rounds, per_round);
  for (uint64_t r = 0; r < rounds; ++r) gen.Round(r);
  return gen.Finish();
}

}  // namespace grainscope
