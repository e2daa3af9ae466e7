#include "analysis/critpath/critpath_shares.h"

#include <algorithm>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "analysis/critpath/critpath_parts.h"
#include "analysis/replay/sweep_backward.h"
#include "base/wire.h"
#include "model/trace_index.h"

namespace grainscope {
namespace {

using namespace critpath_internal;

// What each share tells every share after the forward sweep: where its own path end is, the span
// of its own events, and what the report cites of its messages. No padding (base/wire.h).
struct ShareSummary {
  TimeNs length = 0;
  uint32_t end_location = 0;
  uint32_t has_end = 0;
  TimeNs start = 0, end = 0;
  uint64_t messages = 0, rendezvous = 0;
};

// The walk back's hand-over from share to share, and its end (sent to every other share).
struct WalkToken {
  uint32_t done = 0;
  uint32_t location = 0;
  uint32_t ghost = 0;  // the event, as the sender's ghost event number on the location
  uint32_t runs = 0;   // runs walked so far: the next run's number (0: the path's last run)
};

// A labelled piece of run number `run` (pieces of one run in time order).
struct RunPiece {
  uint32_t run = 0;
  uint32_t reserved = 0;
  PathSegment segment;
};
struct LocationWork {
  uint32_t location = 0;
  uint32_t reserved = 0;
  TimeNs compute_ns = 0;
};
static_assert(std::has_unique_object_representations_v<ShareSummary> &&
              std::has_unique_object_representations_v<WalkToken> &&
              std::has_unique_object_representations_v<RunPiece> &&
              std::has_unique_object_representations_v<LocationWork> &&
              std::has_unique_object_representations_v<GrainSlack>);

ShareSummary Summarise(const HbGraph& g, const ForwardSweep& f, const TraceShare& share) {
  const Trace& t = share.trace;
  ShareSummary s;
  CriticalPath end;
  if (FindPathEnd(g, f, share.locations, end)) {
    s.has_end = 1;
    s.length = end.length_ns;
    s.end_location = end.end_location.value;
  }
  s.start = std::numeric_limits<TimeNs>::max();
  s.end = std::numeric_limits<TimeNs>::min();
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const std::span<const TimeNs> time = t.events(LocationId(l)).time;
    if (!share.locations.Holds(l) || time.empty()) continue;
    s.start = std::min(s.start, time.front());
    s.end = std::max(s.end, time.back());
  }
  // A message belongs to its sender's share (its receiver's when it has no send).
  const MessageTable& msgs = t.messages();
  for (uint32_t m = 0; m < msgs.size(); ++m)
    s.messages += share.locations.Holds((msgs.send_event[m] != kNoEvent ? msgs.sender[m] : msgs.receiver[m]).value);
  const DependencyTable& deps = t.dependencies();
  for (uint32_t d = 0; d < deps.size(); ++d)
    s.rendezvous += deps.kind[d] == DependencyKind::kRendezvous && share.locations.Holds(deps.to_location[d].value);
  return s;
}

// Every share's summary to every share; the whole trace's path end (the largest value, the lowest
// location on ties, as FindPathEnd), measured run and message figures, the same on every share.
Status AgreeOnEnd(const ShareSummary& mine, size_t locations, ShareExchange& exchange, CriticalPath& cp) {
  GS_ASSIGN_OR_RETURN(const std::vector<ShareSummary> all, AllGather(std::vector<ShareSummary>{mine}, exchange, "a summary"));
  if (all.size() != exchange.count()) return DataLoss(fmt::format("share {}: a damaged summary", exchange.index()));
  bool found = false;
  TimeNs start = std::numeric_limits<TimeNs>::max(), end = std::numeric_limits<TimeNs>::min();
  for (const ShareSummary& s : all) {
    if (s.has_end && s.end_location >= locations)
      return DataLoss(fmt::format("share {}: a summary names no location of the trace", exchange.index()));
    if (s.has_end && (!found || s.length > cp.length_ns || (s.length == cp.length_ns && s.end_location < cp.end_location.value))) {
      cp.length_ns = s.length;
      cp.end_location = LocationId(s.end_location);
      found = true;
    }
    start = std::min(start, s.start);
    end = std::max(end, s.end);
    cp.message_count += s.messages;
    cp.rendezvous_sends += s.rendezvous;
  }
  if (!found) return FailedPrecondition("the trace has no events");
  cp.measured_ns = end - start;
  return OkStatus();
}

// The walk back over the shares: the share holding the path's end starts it; a share walks while
// the path stays on its locations, then hands it to the share of the location it reached. Returns
// this share's runs with their numbers (0: the path's last run).
Result<std::vector<std::pair<uint32_t, Run>>> WalkShares(const HbGraph& g, const ForwardSweep& f,
                                                         const TraceShare& share, SweepShares& shares,
                                                         ShareExchange& exchange, const CriticalPath& cp,
                                                         TimeNs* transfer) {
  const Trace& t = share.trace;
  std::vector<std::pair<uint32_t, Run>> mine;
  std::vector<Run> runs;
  std::optional<PathStep> at;
  uint32_t number = 0;
  if (share.locations.Holds(cp.end_location.value))
    at = PathStep{cp.end_location, static_cast<EventIndex>(t.events(cp.end_location).size() - 1)};
  while (true) {
    if (!at) {
      GS_ASSIGN_OR_RETURN(auto blob, exchange.Receive());
      std::string_view b = blob.second;
      WalkToken token;
      EventIndex event = kNoEvent;
      if (wire::Take(b, token) && b.empty() && !token.done && share.locations.Holds(token.location))
        event = shares.ExportedEvent(LocationId(token.location), blob.first, token.ghost);
      if (token.done && b.empty()) break;
      if (event == kNoEvent)
        return DataLoss(fmt::format("share {}: a damaged hand-over of the walk back from share {}", exchange.index(),
                                    blob.first));
      at = PathStep{LocationId(token.location), event};
      number = token.runs;
    }
    runs.clear();
    const std::optional<PathStep> next = WalkBack(g, f, *at, share.locations, runs, transfer);
    for (const Run& r : runs) mine.push_back({number++, r});
    std::string blob;
    if (!next) {  // the path's start: every other share stops waiting
      wire::Put(blob, WalkToken{1, 0, 0, number});
      for (uint32_t k = 0; k < exchange.count(); ++k)
        if (k != exchange.index()) GS_RETURN_IF_ERROR(exchange.Send(k, blob));
      break;
    }
    wire::Put(blob, WalkToken{0, next->location.value, next->event, number});
    GS_RETURN_IF_ERROR(exchange.Send(share.share_of_location[next->location.value], std::move(blob)));
    at.reset();
  }
  return mine;
}

// This share's part of the result, for share 0.
struct SharePart {
  TimeNs transfer = 0;
  std::vector<RunPiece> pieces;
  std::vector<LocationWork> work;
  std::vector<TimeNs> region_total;
  std::vector<GrainSlack> slack;
};

std::string Pack(const SharePart& p) {
  std::string blob;
  wire::Put(blob, p.transfer);
  wire::PutAll(blob, p.pieces);
  wire::PutAll(blob, p.work);
  wire::PutAll(blob, p.region_total);
  wire::PutAll(blob, p.slack);
  return blob;
}

// Share 0: the whole path, work, profile and slack from every share's part (`parts`: Pack's
// blobs, each freed once read).
Status Assemble(const Trace& t, std::vector<std::string>& parts, CriticalPath& cp) {
  std::vector<RunPiece> pieces;
  std::vector<TimeNs> region_total(t.regions().size() + 1, 0);
  cp.compute_ns.assign(t.locations().size(), 0);
  for (uint32_t k = 0; k < parts.size(); ++k) {
    std::string_view b = parts[k];
    const size_t first_piece = pieces.size(), first_grain = cp.slack.size();
    TimeNs transfer = 0;
    std::vector<LocationWork> work;
    std::vector<TimeNs> regions;
    if (!wire::Take(b, transfer) || !wire::TakeAll(b, pieces) || !wire::TakeAll(b, work) ||
        !wire::TakeAll(b, regions) || !wire::TakeAll(b, cp.slack) || !b.empty() || regions.size() != region_total.size())
      return DataLoss(fmt::format("share 0: a damaged part from share {}", k));
    parts[k] = std::string();
    const size_t n = t.locations().size(), regions_n = t.regions().size();
    auto bad_region = [&](RegionId r) { return r.valid() && r.value >= regions_n; };
    for (size_t i = first_piece; i < pieces.size(); ++i)
      if (pieces[i].segment.location.value >= n || bad_region(pieces[i].segment.region))
        return DataLoss(fmt::format("share 0: share {}'s path names no location or region of the trace", k));
    for (size_t i = first_grain; i < cp.slack.size(); ++i)
      if (const GrainInstance& g = cp.slack[i].grain; g.location.value >= n || !g.region.valid() || bad_region(g.region))
        return DataLoss(fmt::format("share 0: share {}'s grains name no location or region of the trace", k));
    cp.transfer_ns += transfer;
    for (const LocationWork& w : work) {
      if (w.location >= cp.compute_ns.size()) return DataLoss("a share's work names no location of the trace");
      cp.compute_ns[w.location] = w.compute_ns;
    }
    for (size_t r = 0; r < region_total.size(); ++r) region_total[r] += regions[r];
  }
  // Runs were numbered walking back: the path is the runs in decreasing number.
  std::stable_sort(pieces.begin(), pieces.end(), [](const RunPiece& a, const RunPiece& b) { return a.run > b.run; });
  for (const RunPiece& p : pieces) AppendPiece(p.segment, cp.path);
  // CollectGrains' order: by location, each location's in its own order.
  std::stable_sort(cp.slack.begin(), cp.slack.end(),
                   [](const GrainSlack& a, const GrainSlack& b) { return a.grain.location < b.grain.location; });
  ProfileRegions(t, FirstRegionOfName(t), region_total, cp);
  ComputeEfficiencies(cp);
  return OkStatus();
}

}  // namespace

Result<std::optional<CriticalPath>> ComputeCriticalPathOfShare(const TraceShare& share, ShareExchange& exchange,
                                                               const CritPathOptions& options) {
  const Trace& t = share.trace;
  const LocationSet& own = share.locations;
  HbGraph g(t);
  CritPathModel model(g, options.message_latency_ns);
  SweepShares shares(g, share, exchange);
  Result<ForwardSweep> swept = SweepForward(g, model, shares);
  GS_RETURN_IF_ERROR(AgreeOnSweep(swept.status(), shares, exchange));
  ForwardSweep f = std::move(*swept);
  CriticalPath cp;
  GS_RETURN_IF_ERROR(AgreeOnEnd(Summarise(g, f, share), t.locations().size(), exchange, cp));

  SharePart part;
  GS_ASSIGN_OR_RETURN(const auto runs, WalkShares(g, f, share, shares, exchange, cp, &part.transfer));
  std::vector<PathSegment> labelled;
  for (const auto& [number, run] : runs) {
    labelled.clear();
    LabelRun(g, f, run, labelled);
    for (const PathSegment& s : labelled) part.pieces.push_back({number, 0, s});
  }
  const std::vector<uint32_t> row_of = FirstRegionOfName(t);
  std::vector<TimeNs> compute_ns;
  ComputeWork(g, model, row_of, own, compute_ns, part.region_total);
  for (uint32_t l = 0; l < compute_ns.size(); ++l)
    if (own.Holds(l)) part.work.push_back({l, 0, compute_ns[l]});
  part.slack = OwnGrains(g, f, own);
  f = ForwardSweep();

  // No share sends a backward value before every share has stopped waiting for the walk.
  GS_RETURN_IF_ERROR(exchange.AllToAll(std::vector<std::string>(exchange.count())).status());
  shares.Backward();
  Result<std::vector<TimeNs>> latest = SweepBackward(g, model, cp.length_ns, shares);
  GS_RETURN_IF_ERROR(AgreeOnSweep(latest.status(), shares, exchange));
  SetSlack(g, *latest, part.slack);
  latest = std::vector<TimeNs>();

  std::vector<std::string> out(exchange.count());
  out[0] = Pack(part);
  part = SharePart();
  GS_ASSIGN_OR_RETURN(std::vector<std::string> in, exchange.AllToAll(std::move(out)));
  if (exchange.index() != 0) return std::optional<CriticalPath>();
  GS_RETURN_IF_ERROR(Assemble(t, in, cp));
  return std::optional<CriticalPath>(std::move(cp));
}

}  // namespace grainscope
