// Cost models for what-if replay (SPEC.md §4): how long a message or a collective takes on a
// modelled network, instead of what the trace measured.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "model/trace.h"
#include "model/trace_share.h"

namespace grainscope {

enum class NetworkKind {
  kMeasured,          // each message takes what it took in the trace (t_recv - t_send)
  kZero,              // messages arrive the moment they are sent
  kLatencyBandwidth,  // Dimemas / BigSim simple model: latency + bytes / bandwidth
  kLogGP,             // LogGP as in LogGOPSim
};

struct NetworkModel {
  NetworkKind kind = NetworkKind::kMeasured;
  TimeNs latency_ns = 0;
  double bytes_per_ns = 0;  // bandwidth in bytes/ns (= GB/s); 0 = infinite
  // LogGP (LogGOPSim defaults): L latency, o CPU overhead per message, g gap per message (not
  // modelled: it needs the NIC's queue), G time per byte, O CPU time per byte, S eager limit.
  TimeNs L = 2500, o = 1500, g = 1000;
  double G = 6, O = 0;
  uint64_t S = 65535;

  // Time from the send to the message's arrival (receiver overhead included).
  TimeNs Transfer(uint64_t bytes) const;
  // CPU time the sender spends in the send call (LogGP: o + (s-1)O; other models: 0).
  TimeNs SendOverhead(uint64_t bytes) const;
};

// Parses "measured", "zero", "latbw" or "loggp"; the parameters come from other options.
Result<NetworkKind> ParseNetworkKind(std::string_view name);
// Parses "L=2500,o=1500,G=6,S=65535" (any subset) into `model`.
Status ParseLogGP(std::string_view spec, NetworkModel& model);

// Dimemas' collective model: a fan-in and a fan-out phase, each 0, 1, P-1 or ceil(log2 P) times
// (latency + bytes / bandwidth).
enum class CollectivePhase { kZero, kConstant, kLinear, kLog };
struct CollectiveModel {
  bool measured = true;  // false: use the phases below
  // Measured collectives FACTOR times faster: the time each takes once its last member has arrived
  // (an NCCL kernel's transfer, an MPI collective's), and the rest of the time inside collective
  // calls, divided by it. The waiting for late members is recomputed, as always.
  double speed = 1;
  TimeNs Scaled(TimeNs measured_ns) const {
    return speed == 1 ? measured_ns : static_cast<TimeNs>(std::llround(static_cast<double>(measured_ns) / speed));
  }
  CollectivePhase fan_in = CollectivePhase::kLog;
  CollectivePhase fan_out = CollectivePhase::kLog;
  TimeNs latency_ns = 0;
  double bytes_per_ns = 0;  // 0 = infinite

  TimeNs Cost(uint32_t members, uint64_t bytes_in, uint64_t bytes_out) const;
};

Result<CollectivePhase> ParseCollectivePhase(std::string_view name);

// latbw's parameters from the trace's own matched messages, for `replay --network latbw` given
// neither --latency nor --bandwidth: per message size, the fastest transfer (receive time minus
// send time; one at least one of the receives was already waiting for) is taken as that size's
// cost; latency and bandwidth are the least-squares line through those minima (latency >= 0,
// bandwidth unlimited when the cost does not grow with size). One size: its minimum is the
// latency. `messages` = 0: nothing to fit (no matched message with a non-negative transfer).
// The bandwidth `--network latbw` assumes when the trace's messages cannot determine one (a
// single message size, or transfer times that do not grow with size): 10 GB/s, the order of an
// InfiniBand EDR link and of a shared-memory copy between cores. The replay says it assumed it.
inline constexpr double kAssumedBandwidthGBps = 10.0;

struct NetworkFit {
  TimeNs latency_ns = 0;
  double bytes_per_ns = 0;  // 0: the messages do not determine it (kAssumedBandwidthGBps)
  size_t messages = 0;      // matched messages used
  size_t sizes = 0;         // distinct sizes among them
};
NetworkFit FitLatencyBandwidth(const Trace& trace);

// FitLatencyBandwidth in two steps, so that shares of a trace can fit together: the fastest
// transfer of each size among the matched messages `own` sends (clock violations left out), and
// the fit to them.
struct TransferMinima {
  std::map<uint64_t, TimeNs> fastest;  // bytes -> smallest transfer time
  size_t messages = 0;                 // matched messages counted
  void Add(uint64_t bytes, TimeNs d, size_t count) {
    auto [it, added] = fastest.try_emplace(bytes, d);
    if (!added) it->second = std::min(it->second, d);
    messages += count;
  }
};
TransferMinima FastestTransfers(const Trace& trace, const LocationSet& own);
NetworkFit FitToFastest(const TransferMinima& minima);

}  // namespace grainscope
