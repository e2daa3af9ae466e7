#include "cli/replay_options.h"

#include <limits>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/numbers.h"
#include "cli/common.h"
#include "report/units.h"

namespace grainscope::cli {

Status ApplyFit(const NetworkFit& fit, ReplayFlags& f, WhatIf& w) {
  if (fit.messages == 0) {
    return InvalidArgument("--network latbw: the trace has no matched message to fit latency and bandwidth to; "
                           "give --latency and --bandwidth");
  }
  w.network.latency_ns = fit.latency_ns;
  w.network.bytes_per_ns = fit.bytes_per_ns;
  f.fitted = fmt::format(" (fitted to the trace's {} matched messages of {} size(s): the fastest transfer of each size)",
                         fit.messages, fit.sizes);
  if (!(fit.bytes_per_ns > 0)) {
    // One size, or no growth with size: the latency is the trace's, the bandwidth cannot be.
    w.network.bytes_per_ns = kAssumedBandwidthGBps;
    f.fitted = fmt::format(" (latency fitted to the trace's {} matched messages of {} size(s); their transfer times "
                           "do not determine a bandwidth{}, so {} GB/s is assumed: give --bandwidth)",
                           fit.messages, fit.sizes, fit.sizes == 1 ? " (one size)" : " (they do not grow with size)",
                           kAssumedBandwidthGBps);
  }
  return OkStatus();
}


namespace {

Result<std::vector<SpeedFactor>> ParseSpeeds(const std::vector<std::string>& items, std::string_view option) {
  std::vector<SpeedFactor> out;
  for (const std::string& item : items) {
    const size_t eq = item.rfind('=');
    const std::optional<double> f =
        eq == std::string::npos ? std::nullopt : ParseFiniteDouble(std::string_view(item).substr(eq + 1));
    if (eq == 0 || !f || !(*f > 0))
      return InvalidArgument(fmt::format("{} '{}': expected NAME=FACTOR with a finite FACTOR > 0 (2 = twice as fast)",
                                         option, EchoToken(item)));
    out.push_back({item.substr(0, eq), *f});
  }
  return out;
}

}  // namespace

Result<WhatIf> MakeWhatIf(const ReplayFlags& f) {
  WhatIf w;
  GS_ASSIGN_OR_RETURN(w.network.kind, ParseNetworkKind(f.zero_comm ? "zero" : f.network));
  w.network.latency_ns = f.latency_ns;
  w.network.bytes_per_ns = f.bandwidth_gbps;
  if (!f.loggp.empty()) {
    if (w.network.kind != NetworkKind::kLogGP) return InvalidArgument("--loggp needs --network loggp");
    GS_RETURN_IF_ERROR(ParseLogGP(f.loggp, w.network));
  }
  const std::string collective = f.zero_comm ? "zero" : f.collective;
  if (collective != "measured") {
    w.collective.measured = false;
    GS_ASSIGN_OR_RETURN(CollectivePhase both, ParseCollectivePhase(collective));
    w.collective.fan_in = w.collective.fan_out = both;
  }
  if (!f.collective_in.empty()) {
    if (w.collective.measured) return InvalidArgument("--collective-in needs --collective other than measured");
    GS_ASSIGN_OR_RETURN(w.collective.fan_in, ParseCollectivePhase(f.collective_in));
  }
  if (!f.collective_out.empty()) {
    if (w.collective.measured) return InvalidArgument("--collective-out needs --collective other than measured");
    GS_ASSIGN_OR_RETURN(w.collective.fan_out, ParseCollectivePhase(f.collective_out));
  }
  w.collective.latency_ns = f.latency_ns;
  w.collective.bytes_per_ns = f.bandwidth_gbps;
  if (f.collective_speed != 1 && !w.collective.measured)
    return InvalidArgument("--collective-speed scales measured collectives; --collective " + collective + " models them");
  w.collective.speed = f.collective_speed;
  GS_ASSIGN_OR_RETURN(w.location_speed, ParseSpeeds(f.speed, "--speed"));
  GS_ASSIGN_OR_RETURN(w.region_speed, ParseSpeeds(f.region_speed, "--region-speed"));
  w.removed_regions = f.removed;
  return w;
}

std::string Describe(const WhatIf& w, const ReplayFlags& f) {
  std::vector<std::string> parts;
  switch (w.network.kind) {
    case NetworkKind::kMeasured: parts.push_back("network as measured"); break;
    case NetworkKind::kZero: parts.push_back("network zero-cost"); break;
    case NetworkKind::kLatencyBandwidth:
      parts.push_back(w.network.bytes_per_ns <= 0
                          ? fmt::format("network latency {} ns, bandwidth unlimited (no --bandwidth){}",
                                        w.network.latency_ns, f.fitted)
                          : fmt::format("network latency {} ns + bytes / {} GB/s{}", w.network.latency_ns,
                                        f.fitted.empty() ? fmt::format("{}", w.network.bytes_per_ns)
                                                         : fmt::format("{:.4g}", w.network.bytes_per_ns),
                                        f.fitted));
      break;
    case NetworkKind::kLogGP:
      parts.push_back(fmt::format("network LogGP L={} o={} G={} O={} S={}", w.network.L, w.network.o, w.network.G,
                                  w.network.O, w.network.S));
      break;
  }
  parts.push_back(w.collective.measured && w.collective.speed != 1 ? fmt::format("collectives x{}", w.collective.speed)
                  : w.collective.measured                         ? "collectives as measured"
                                        : fmt::format("collectives {}/{} (fan-in/fan-out)",
                                                      f.collective_in.empty() ? (f.zero_comm ? "zero" : f.collective) : f.collective_in,
                                                      f.collective_out.empty() ? (f.zero_comm ? "zero" : f.collective) : f.collective_out));
  for (const SpeedFactor& s : w.location_speed)
    if (!s.location.valid()) parts.push_back(fmt::format("{} x{}", s.name, s.factor));
  if (!f.unstraggled.empty()) parts.push_back(f.unstraggled);
  for (const SpeedFactor& s : w.region_speed) parts.push_back(fmt::format("region {} x{}", s.name, s.factor));
  for (const std::string& r : w.removed_regions) parts.push_back(fmt::format("without region {}", r));
  if (f.clc) parts.push_back(fmt::format("clocks corrected (CLC, min latency {} ns)", f.min_latency_ns));
  return fmt::format("{}", fmt::join(parts, "; "));
}

// --unstraggle: the process's CPU locations compute as fast as makes its computation the other
// processes' median (analysis/regions/straggler.h).
void ApplyUnstraggle(const Trace& trace, const StragglerPlan& plan, ReplayFlags& f, WhatIf& w) {
  std::vector<SpeedFactor> speeds;
  for (LocationId l : plan.locations) {
    SpeedFactor s;
    s.name = std::string(trace.str(trace.location(l).name));
    s.factor = plan.factor;
    s.location = l;
    speeds.push_back(std::move(s));
  }
  // First: a --speed given for one of these locations is applied after, and wins.
  w.location_speed.insert(w.location_speed.begin(), speeds.begin(), speeds.end());
  f.unstraggled = fmt::format("{}'s straggling removed: its CPU computation {} over the other processes' median {}, x{:.4g}",
                              trace.str(trace.location(plan.process).name), FormatDuration(plan.computation_ns),
                              FormatDuration(plan.median_ns), plan.factor);
}

void AddReplayModelOptions(CLI::App& cmd, ReplayFlags& f) {
  cmd.add_option("--network", f.network, "Message model: measured, zero, latbw (latency + bytes/bandwidth), loggp")
      ->capture_default_str();
  f.latency_option = AddDurationOption(
      cmd, "--latency", f.latency_ns,
      "Latency for latbw and modelled collectives (5us, 250ns, ...; latbw without --latency and --bandwidth "
      "fits both to the trace's messages)");
  f.bandwidth_option = AddNumberOption(cmd, "--bandwidth", f.bandwidth_gbps, 0, std::numeric_limits<double>::max(), true,
                  "Bandwidth in GB/s (bytes per ns) for latbw and modelled collectives (default: unlimited)");
  cmd.add_option("--loggp", f.loggp, "LogGP parameters, e.g. L=2500,o=1500,g=1000,G=6,O=0,S=65535 (these are the defaults; L, o and g "
                  "are durations, ns or with a unit: L=2.5us)");
  cmd.add_option("--collective", f.collective, "Collective model: measured, zero, or constant|linear|log for both phases")
      ->capture_default_str();
  cmd.add_option("--collective-in", f.collective_in, "Fan-in phase: zero, constant, linear, log");
  cmd.add_option("--collective-out", f.collective_out, "Fan-out phase: zero, constant, linear, log");
  AddNumberOption(cmd, "--collective-speed", f.collective_speed, 0, std::numeric_limits<double>::max(), true,
                  "FACTOR: measured collectives (MPI, NCCL/RCCL kernels) run FACTOR times faster once their last "
                  "member has arrived; waiting for late members is recomputed");
}

void AddUnstraggleOption(CLI::App& cmd, ReplayFlags& f) {
  cmd.add_option("--unstraggle", f.unstraggle,
                  "LOCATION: the process (rank) of LOCATION computes no more than the other processes' median: its CPU "
                  "locations run its computation over that median times faster (its GPU streams as measured)");
}

void AddClcOptions(CLI::App& cmd, ReplayFlags& f) {
  cmd.add_flag("--clc", f.clc, "First correct clock disagreements with the controlled logical clock");
  AddDurationOption(cmd, "--min-latency", f.min_latency_ns,
                    "Minimum message latency the clock correction enforces (5us, 250ns, ...)");
}

void AddReplaySpeedOptions(CLI::App& cmd, ReplayFlags& f) {
  cmd.add_option("--speed", f.speed, "LOCATION=FACTOR: the location computes FACTOR times faster (name or id; repeatable)");
  cmd.add_option("--region-speed", f.region_speed, "REGION=FACTOR: everything inside REGION runs FACTOR times faster");
  cmd.add_option("--remove-region", f.removed, "Replay as if REGION (and what it calls) took no time (repeatable)");
  cmd.add_flag("--zero-comm", f.zero_comm, "Communication costs nothing: --network zero --collective zero");
}

}  // namespace grainscope::cli
