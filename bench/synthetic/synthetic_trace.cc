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

  TraceBuilder b("synthetic");
  std::vector<LocationId> locs;
  for (uint32_t l = 0; l < o.locations; ++l) locs.push_back(b.AddLocation("rank " + std::to_string(l), LocationKind::kRank, l));
  const CommunicatorId world = b.AddCommunicator("MPI_COMM_WORLD", locs);
  const RegionId iteration = b.AddRegion("iteration", RegionRole::kFunction, 0);
  const RegionId solve = b.AddRegion("solve", RegionRole::kFunction, 1);
  std::vector<RegionId> leaf;
  for (uint32_t i = 0; i < std::min<uint32_t>(leaves, 8); ++i)
    leaf.push_back(b.AddRegion("kernel " + std::to_string(i), RegionRole::kFunction, 2 + i));
  const RegionId send = b.AddRegion("MPI_Send", RegionRole::kPointToPoint, 100);
  const RegionId recv = b.AddRegion("MPI_Recv", RegionRole::kPointToPoint, 101);
  const RegionId barrier = b.AddRegion("MPI_Barrier", RegionRole::kCollective, 102);
  b.AddMetadata("generator", "grainscope synthetic");
  b.AddMetadata("seed", std::to_string(o.seed));
  for (LocationId l : locs) b.Reserve(l, rounds * per_round + (o.barrier_every ? 4 * (rounds / o.barrier_every + 1) : 0));

  Random rng(o.seed);
  std::vector<TimeNs> clock(o.locations, 0);
  std::vector<TimeNs> send_time(o.locations);
  std::vector<MessageId> msg(o.locations);
  constexpr TimeNs kLatency = 1500;
  for (uint64_t r = 0; r < rounds; ++r) {
    for (uint32_t l = 0; l < o.locations; ++l) {
      const double scale = rng.Uniform() < o.late_fraction ? 4.0 : 1.0;
      TimeNs& t = clock[l];
      b.Enter(locs[l], t, iteration);
      t += rng.Between(10, 50);
      b.Enter(locs[l], t, solve);
      for (uint32_t i = 0; i < leaves; ++i) {
        t += rng.Between(5, 20);
        b.Enter(locs[l], t, leaf[i % leaf.size()]);
        t += static_cast<TimeNs>(scale * static_cast<double>(rng.Between(200, 1200)));
        b.Leave(locs[l], t, leaf[i % leaf.size()]);
      }
      t += rng.Between(5, 20);
      b.Leave(locs[l], t, solve);
      MessageInfo info;
      info.sender = locs[l];
      info.receiver = locs[(l + 1) % o.locations];
      info.tag = static_cast<int32_t>(r & 0x7fff);
      info.bytes = 1024 + 64 * (rng.Next() % 64);
      info.communicator = world;
      msg[l] = b.AddMessage(info);
      t += rng.Between(20, 100);
      b.Enter(locs[l], t, send);
      b.Send(locs[l], t, msg[l]);
      send_time[l] = t;
      t += rng.Between(300, 900);
      b.Leave(locs[l], t, send);
    }
    for (uint32_t l = 0; l < o.locations; ++l) {
      const uint32_t left = (l + o.locations - 1) % o.locations;
      TimeNs& t = clock[l];
      t += rng.Between(10, 40);
      b.Enter(locs[l], t, recv);
      t = std::max(t + rng.Between(200, 600), send_time[left] + kLatency);
      b.Recv(locs[l], t, msg[left]);
      b.Leave(locs[l], t, recv);
      t += rng.Between(5, 20);
      b.Leave(locs[l], t, iteration);
    }
    if (o.barrier_every > 0 && (r + 1) % o.barrier_every == 0) {
      const CollectiveId c = b.AddCollective(CollectiveOp::kBarrier, world, LocationId());
      TimeNs last = 0;
      for (uint32_t l = 0; l < o.locations; ++l) {
        clock[l] += rng.Between(10, 40);
        last = std::max(last, clock[l]);
      }
      for (uint32_t l = 0; l < o.locations; ++l) {
        b.Enter(locs[l], clock[l], barrier);
        b.CollBegin(locs[l], clock[l], c, 0, 0);
        clock[l] = last + rng.Between(1000, 3000);
        b.CollEnd(locs[l], clock[l], c);
        b.Leave(locs[l], clock[l], barrier);
      }
    }
  }
  return b.Finish();
}

}  // namespace grainscope
