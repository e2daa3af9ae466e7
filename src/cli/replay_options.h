// The options of the what-if replay, shared by `grainscope replay` and `grainscope-mpi replay`:
// the flags as parsed, the WhatIf they make and its one-line description.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "analysis/regions/straggler.h"
#include "analysis/replay/network.h"
#include "analysis/replay/replay.h"
#include "base/status.h"

namespace grainscope::cli {

struct ReplayFlags {
  std::string network = "measured";
  int64_t latency_ns = 0;
  double bandwidth_gbps = 0;
  std::string loggp;
  std::string collective = "measured";
  std::string collective_in, collective_out;
  std::vector<std::string> speed, region_speed, removed;
  double collective_speed = 1;
  std::string unstraggle;  // a location of the process whose straggling is removed
  std::string unstraggled;  // what --unstraggle did, for the description
  bool zero_comm = false;
  bool clc = false;
  int64_t min_latency_ns = 0;
  std::string fitted;        // how latbw's parameters were fitted to the trace, when they were
  CLI::Option* latency_option = nullptr;  // AddReplayModelOptions': whether --latency or --bandwidth was given
  CLI::Option* bandwidth_option = nullptr;

  // latbw without --latency or --bandwidth: its parameters are fitted to the trace's messages.
  bool NeedsFit(const WhatIf& w) const {
    return w.network.kind == NetworkKind::kLatencyBandwidth && latency_option->count() == 0 &&
           bandwidth_option->count() == 0;
  }
};

// --network, --latency, --bandwidth, --loggp and the collective model's options.
void AddReplayModelOptions(CLI::App& cmd, ReplayFlags& f);
// --unstraggle.
void AddUnstraggleOption(CLI::App& cmd, ReplayFlags& f);
// --clc and --min-latency.
void AddClcOptions(CLI::App& cmd, ReplayFlags& f);
// --speed, --region-speed, --remove-region and --zero-comm.
void AddReplaySpeedOptions(CLI::App& cmd, ReplayFlags& f);

Result<WhatIf> MakeWhatIf(const ReplayFlags& f);

// `--network latbw` without --latency and --bandwidth (ReplayFlags::NeedsFit): the parameters
// fitted to the trace's own messages (never a zero-cost network in silence); an error when the
// trace has no message to fit to.
Status ApplyFit(const NetworkFit& fit, ReplayFlags& f, WhatIf& w);

// --unstraggle's plan: its process's CPU locations compute plan.factor times faster (before any
// --speed, which wins for a location it names).
void ApplyUnstraggle(const Trace& trace, const StragglerPlan& plan, ReplayFlags& f, WhatIf& w);

// "network latency 5000 ns + bytes / 10 GB/s; collectives as measured; ...".
std::string Describe(const WhatIf& w, const ReplayFlags& f);

}  // namespace grainscope::cli
