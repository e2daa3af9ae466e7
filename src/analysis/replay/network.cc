#include "analysis/replay/network.h"

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "base/numbers.h"

namespace grainscope {
namespace {

TimeNs BytesTime(uint64_t bytes, double bytes_per_ns) {
  return bytes_per_ns > 0 ? static_cast<TimeNs>(std::llround(static_cast<double>(bytes) / bytes_per_ns)) : 0;
}

TimeNs PerByte(uint64_t bytes, double ns_per_byte) {
  return bytes > 1 ? static_cast<TimeNs>(std::llround(static_cast<double>(bytes - 1) * ns_per_byte)) : 0;
}

int64_t PhaseFactor(CollectivePhase p, uint32_t members) {
  switch (p) {
    case CollectivePhase::kZero: return 0;
    case CollectivePhase::kConstant: return 1;
    case CollectivePhase::kLinear: return members > 0 ? members - 1 : 0;
    case CollectivePhase::kLog: {
      int64_t steps = 0;
      while ((uint64_t{1} << steps) < members) ++steps;
      return steps;
    }
  }
  return 0;
}

}  // namespace

TransferMinima FastestTransfers(const Trace& trace, const LocationSet& own) {
  TransferMinima minima;
  const MessageTable& m = trace.messages();
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (!m.matched(MessageId(i)) || !own.Holds(m.sender[i].value)) continue;
    const TimeNs d = trace.events(m.receiver[i]).time[m.recv_event[i]] - trace.events(m.sender[i]).time[m.send_event[i]];
    if (d < 0) continue;  // clocks disagree: not a transfer time
    minima.Add(m.bytes[i], d, 1);
  }
  return minima;
}

NetworkFit FitToFastest(const TransferMinima& minima) {
  NetworkFit fit;
  const std::map<uint64_t, TimeNs>& fastest = minima.fastest;
  fit.messages = minima.messages;
  fit.sizes = fastest.size();
  if (fastest.empty()) return fit;
  if (fastest.size() == 1) {
    fit.latency_ns = fastest.begin()->second;
    return fit;
  }
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (const auto& [bytes, d] : fastest) {
    const double x = static_cast<double>(bytes), y = static_cast<double>(d);
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);  // ns per byte
  double intercept = (sy - slope * sx) / n;
  if (!(slope > 0)) {  // no growth with size: a constant cost, the sizes' smallest minimum
    TimeNs least = fastest.begin()->second;
    for (const auto& [bytes, d] : fastest) least = std::min(least, d);
    fit.latency_ns = least;
    return fit;
  }
  fit.bytes_per_ns = 1.0 / slope;
  fit.latency_ns = intercept > 0 ? static_cast<TimeNs>(std::llround(intercept)) : 0;
  return fit;
}

NetworkFit FitLatencyBandwidth(const Trace& trace) { return FitToFastest(FastestTransfers(trace, LocationSet{})); }

namespace {

// The largest LogGP parameter accepted: 1e12 (ns: about 17 minutes per message; bytes for S).
constexpr double kMaxLogGPValue = 1e12;

}  // namespace

TimeNs NetworkModel::Transfer(uint64_t bytes) const {
  switch (kind) {
    case NetworkKind::kMeasured:
    case NetworkKind::kZero:
      return 0;
    case NetworkKind::kLatencyBandwidth:
      return latency_ns + BytesTime(bytes, bytes_per_ns);
    case NetworkKind::kLogGP: {
      // eager: the data follows the sender's overhead; above S a rendezvous adds a request and
      // a reply (two more latencies and overheads) before the data moves.
      TimeNs t = L + PerByte(bytes, G) + o + PerByte(bytes, O);
      if (bytes > S) t += 2 * (L + o);
      return t;
    }
  }
  return 0;
}

TimeNs NetworkModel::SendOverhead(uint64_t bytes) const {
  return kind == NetworkKind::kLogGP ? o + PerByte(bytes, O) : 0;
}

Result<NetworkKind> ParseNetworkKind(std::string_view name) {
  if (name == "measured") return NetworkKind::kMeasured;
  if (name == "zero") return NetworkKind::kZero;
  if (name == "latbw") return NetworkKind::kLatencyBandwidth;
  if (name == "loggp") return NetworkKind::kLogGP;
  return InvalidArgument(fmt::format("unknown network model '{}' (expected measured, zero, latbw or loggp)", name));
}

Status ParseLogGP(std::string_view spec, NetworkModel& m) {
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string_view::npos) comma = spec.size();
    std::string_view item = spec.substr(pos, comma - pos);
    pos = comma + 1;
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos)
      return InvalidArgument(fmt::format("LogGP parameter '{}' is not NAME=VALUE", EchoToken(item)));
    std::string_view key = item.substr(0, eq), value = item.substr(eq + 1);
    // L, o and g are durations and take units like every duration option (L=2.5us); a plain
    // number (ns) is read as before, exponent included. G and O are ns per byte, S bytes.
    std::optional<double> parsed;
    if (key == "L" || key == "o" || key == "g") {
      if (const std::optional<int64_t> ns = ParseDurationNs(value)) parsed = static_cast<double>(*ns);
    }
    if (!parsed) parsed = ParseFiniteDouble(value);
    if (!parsed || *parsed < 0) {
      return InvalidArgument(fmt::format("LogGP parameter {} has value '{}', expected a number >= 0", EchoToken(key),
                                         EchoToken(value)));
    }
    const double v = *parsed;
    // Bounded so that the integer conversions below and the model's sums cannot overflow (found
    // by fuzz_cli_numbers: L=1e44 was undefined behaviour).
    if (v > kMaxLogGPValue) {
      return InvalidArgument(fmt::format("LogGP parameter {} has value '{}', more than the limit of {:g}", key,
                                         EchoToken(value), kMaxLogGPValue));
    }
    if (key == "L") m.L = static_cast<TimeNs>(v);
    else if (key == "o") m.o = static_cast<TimeNs>(v);
    else if (key == "g") m.g = static_cast<TimeNs>(v);
    else if (key == "G") m.G = v;
    else if (key == "O") m.O = v;
    else if (key == "S") m.S = static_cast<uint64_t>(v);
    else return InvalidArgument(fmt::format("unknown LogGP parameter '{}' (expected L, o, g, G, O or S)", EchoToken(key)));
  }
  return OkStatus();
}

TimeNs CollectiveModel::Cost(uint32_t members, uint64_t bytes_in, uint64_t bytes_out) const {
  return PhaseFactor(fan_in, members) * (latency_ns + BytesTime(bytes_in, bytes_per_ns)) +
         PhaseFactor(fan_out, members) * (latency_ns + BytesTime(bytes_out, bytes_per_ns));
}

Result<CollectivePhase> ParseCollectivePhase(std::string_view name) {
  if (name == "zero") return CollectivePhase::kZero;
  if (name == "constant") return CollectivePhase::kConstant;
  if (name == "linear") return CollectivePhase::kLinear;
  if (name == "log") return CollectivePhase::kLog;
  return InvalidArgument(fmt::format("unknown collective phase '{}' (expected zero, constant, linear or log)", name));
}

}  // namespace grainscope
