#include "analysis/replay/replay_shares.h"

#include <algorithm>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analysis/critpath/critpath_shares.h"
#include "analysis/replay/replay_parts.h"
#include "analysis/replay/sweep_shares.h"
#include "base/wire.h"

namespace grainscope {
namespace {

using namespace replay_internal;

// The span of a share's own events, and their number. No padding (base/wire.h).
struct OwnSpan {
  TimeNs start = std::numeric_limits<TimeNs>::max();
  TimeNs end = std::numeric_limits<TimeNs>::min();
  uint64_t events = 0;
};
// What share 0 needs of each share's replay besides its locations.
struct OwnFigures {
  TimeNs max_deviation = 0;
  uint64_t messages = 0, collectives = 0, dependencies = 0;
};
struct Violations {
  uint64_t messages = 0, collectives = 0, dependencies = 0;
};
struct OwnLocation {
  uint32_t location = 0;
  uint32_t reserved = 0;
  TimeNs measured = 0, predicted = 0;
};
static_assert(std::has_unique_object_representations_v<OwnSpan> &&
              std::has_unique_object_representations_v<OwnFigures> &&
              std::has_unique_object_representations_v<OwnLocation> &&
              std::has_unique_object_representations_v<Violations>);

// The whole trace's span and event count, the same on every share.
Result<OwnSpan> AgreeOnSpan(const TraceShare& share, ShareExchange& exchange) {
  const Trace& t = share.trace;
  OwnSpan mine;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const std::span<const TimeNs> time = t.events(LocationId(l)).time;
    if (!share.locations.Holds(l) || time.empty()) continue;
    mine.start = std::min(mine.start, time.front());
    mine.end = std::max(mine.end, time.back());
    mine.events += time.size();
  }
  GS_ASSIGN_OR_RETURN(const std::vector<OwnSpan> all, AllGather(std::vector<OwnSpan>{mine}, exchange, "a span"));
  if (all.size() != exchange.count()) return DataLoss(fmt::format("share {}: a damaged span", exchange.index()));
  OwnSpan whole;
  for (const OwnSpan& s : all) {
    whole.start = std::min(whole.start, s.start);
    whole.end = std::max(whole.end, s.end);
    whole.events += s.events;
  }
  if (whole.events == 0) return AgreeOnStatus(FailedPrecondition("the trace has no events"), exchange);
  return whole;
}

// One forward sweep of `w` over the shares, every share agreeing on its outcome.
Result<ForwardSweep> SweepOverShares(const HbGraph& g, const TraceShare& share, ShareExchange& exchange,
                                     const WhatIf& w, TimeNs start) {
  SweepShares shares(g, share, exchange);
  Result<ForwardSweep> swept = SweepWhatIf(g, w, start, &shares);
  GS_RETURN_IF_ERROR(AgreeOnSweep(swept.status(), shares, exchange));
  return swept;
}

// The share with every event at its time in `flat` (own and ghost), once every share has it (a
// ghost location's times can decrease where its owner's do not: a failure on one share).
Result<TraceShare> Retimed(const TraceShare& share, std::vector<TimeNs> flat, std::string_view suffix,
                           ShareExchange& exchange) {
  Result<Timeline> times = Timeline::FromFlat(share.trace, std::move(flat));
  Result<Trace> retimed = times.ok() ? share.trace.Retimed(std::move(*times), suffix) : Result<Trace>(times.status());
  GS_RETURN_IF_ERROR(AgreeOnStatus(retimed.status(), exchange));
  return TraceShare{share.locations, share.share_of_location, std::move(*retimed), share.messages, share.collectives};
}

std::string Pack(const OwnFigures& figures, const std::vector<LocationReplay>& locations) {
  std::string blob;
  wire::Put(blob, figures);
  std::vector<OwnLocation> rows;
  for (const LocationReplay& l : locations) rows.push_back({l.location.value, 0, l.measured_ns, l.predicted_ns});
  wire::PutAll(blob, rows);
  return blob;
}

// Share 0: every share's figures and locations into `r` (locations by id, as Replay lists them).
Status Assemble(const std::vector<std::string>& parts, size_t location_count, ReplayResult& r) {
  for (uint32_t k = 0; k < parts.size(); ++k) {
    std::string_view b = parts[k];
    OwnFigures f;
    std::vector<OwnLocation> rows;
    if (!wire::Take(b, f) || !wire::TakeAll(b, rows) || !b.empty())
      return DataLoss(fmt::format("share 0: a damaged replay part from share {}", k));
    r.max_deviation_ns = std::max(r.max_deviation_ns, f.max_deviation);
    r.clock_violations.messages += f.messages;
    r.clock_violations.collectives += f.collectives;
    r.clock_violations.dependencies += f.dependencies;
    for (const OwnLocation& l : rows) {
      if (l.location >= location_count) return DataLoss(fmt::format("share 0: share {}'s replay names no location", k));
      r.locations.push_back({LocationId(l.location), l.measured, l.predicted});
      r.predicted_ns = std::max(r.predicted_ns, l.predicted);
    }
  }
  std::sort(r.locations.begin(), r.locations.end(),
            [](const LocationReplay& a, const LocationReplay& b) { return a.location < b.location; });
  return OkStatus();
}

// A size's fastest transfer in a share, and how many of its messages were counted.
struct SizeMinimum {
  uint64_t bytes = 0;
  TimeNs fastest = 0;
  uint64_t messages = 0;
};
static_assert(std::has_unique_object_representations_v<SizeMinimum>);

}  // namespace

Result<NetworkFit> FitLatencyBandwidthOfShare(const TraceShare& share, ShareExchange& exchange) {
  const TransferMinima mine = FastestTransfers(share.trace, share.locations);
  std::vector<SizeMinimum> rows;
  for (const auto& [bytes, d] : mine.fastest) rows.push_back({bytes, d, 0});
  if (!rows.empty()) rows[0].messages = mine.messages;
  GS_ASSIGN_OR_RETURN(const std::vector<SizeMinimum> all, AllGather(rows, exchange, "transfer times"));
  TransferMinima whole;
  for (const SizeMinimum& r : all) whole.Add(r.bytes, r.fastest, r.messages);
  return FitToFastest(whole);
}

Result<TraceShare> CorrectClocksOfShare(const TraceShare& share, ShareExchange& exchange, const ClcOptions& options,
                                        ClockViolations& before) {
  const Trace& t = share.trace;
  GS_ASSIGN_OR_RETURN(const OwnSpan span, AgreeOnSpan(share, exchange));
  HbGraph g(t);
  const ClockViolations mine = CountClockViolations(g, share.locations);
  GS_ASSIGN_OR_RETURN(const std::vector<Violations> all,
                      AllGather(std::vector<Violations>{{mine.messages, mine.collectives, mine.dependencies}}, exchange,
                                "clock violations"));
  before = ClockViolations();
  for (const Violations& v : all) {
    before.messages += v.messages;
    before.collectives += v.collectives;
    before.dependencies += v.dependencies;
  }
  SweepShares shares(g, share, exchange);
  Result<std::vector<TimeNs>> corrected = CorrectClocks(g, span.start, options.min_latency_ns, share.locations, &shares);
  GS_RETURN_IF_ERROR(AgreeOnSweep(corrected.status(), shares, exchange));
  GS_RETURN_IF_ERROR(AgreeOnStatus(shares.ExchangeValues(g, *corrected), exchange));
  for (TimeNs& v : *corrected) v += span.start;
  return Retimed(share, std::move(*corrected), "+clc", exchange);
}

Result<std::optional<SharedReplay>> ReplayShare(const TraceShare& share, ShareExchange& exchange, const WhatIf& w) {
  const Trace& t = share.trace;
  GS_ASSIGN_OR_RETURN(const OwnSpan span, AgreeOnSpan(share, exchange));
  HbGraph g(t);
  OwnFigures figures;
  const ClockViolations violations = CountClockViolations(g, share.locations);
  figures.messages = violations.messages;
  figures.collectives = violations.collectives;
  figures.dependencies = violations.dependencies;
  // The identity replay first (Replay's check), then the what-if: two sweeps, one after the other.
  GS_ASSIGN_OR_RETURN(ForwardSweep what_if, SweepOverShares(g, share, exchange, WhatIf{}, span.start));
  figures.max_deviation = MaxDeviation(g, what_if, span.start, share.locations);
  if (!w.identity()) {
    GS_ASSIGN_OR_RETURN(what_if, SweepOverShares(g, share, exchange, w, span.start));
  }
  const std::vector<LocationReplay> locations = ReplayedLocations(g, what_if, span.start, share.locations);
  std::vector<std::string> out(exchange.count());
  out[0] = Pack(figures, locations);
  GS_ASSIGN_OR_RETURN(std::vector<std::string> parts, exchange.AllToAll(std::move(out)));

  // The replayed share: own events at their replayed times, ghost events at their owners'.
  for (TimeNs& v : what_if.value) v += span.start;
  GS_ASSIGN_OR_RETURN(const TraceShare replayed, Retimed(share, std::move(what_if.value), "+replay", exchange));
  GS_ASSIGN_OR_RETURN(std::optional<CriticalPath> cp, ComputeCriticalPathOfShare(replayed, exchange));
  if (exchange.index() != 0) return std::optional<SharedReplay>();
  SharedReplay r;
  r.result.measured_ns = span.end - span.start;
  r.result.events = span.events;
  GS_RETURN_IF_ERROR(Assemble(parts, t.locations().size(), r.result));
  r.replayed_path = std::move(*cp);
  return std::optional<SharedReplay>(std::move(r));
}

}  // namespace grainscope
