#include "report/html_report.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/regions/region_instances.h"
#include "analysis/regions/time_classes.h"
#include "report/gpu_report.h"
#include "report/html_assets.h"
#include "report/instances_report.h"
#include "report/lod.h"
#include "report/regions_report.h"
#include "report/render.h"
#include "report/svg.h"

namespace grainscope {
namespace {

using Json = nlohmann::ordered_json;

// Page time: quanta of `quantum_ns` from the origin, so every time of the trace fits in 32 bits.
struct PageClock {
  TimeNs origin = 0;
  int64_t quantum_ns = 1;
  uint32_t operator()(TimeNs t) const {
    return static_cast<uint32_t>(std::max<TimeNs>(0, t - origin) / quantum_ns);
  }
  uint32_t Length(TimeNs a, TimeNs b) const { return (*this)(b) - (*this)(a); }
};

PageClock MakeClock(const Trace& t) {
  const TimeNs span = std::max<TimeNs>(1, t.end_ns() - t.origin_ns());
  constexpr int64_t kMax = 4'000'000'000;  // below 2^32, with room for rounding
  return PageClock{t.origin_ns(), std::max<int64_t>(1, (span + kMax - 1) / kMax)};
}

// Columns of intervals (lane, start, duration, key), sorted by lane then start. On the page: the
// number of intervals per lane, and start, duration and key as base64 typed arrays.
struct IntervalColumns {
  std::vector<uint32_t> lane, start, dur, key;
  void Add(uint32_t l, uint32_t s, uint32_t d, uint32_t k) {
    lane.push_back(l);
    start.push_back(s);
    dur.push_back(d);
    key.push_back(k);
  }
  void SortByLane() {
    std::vector<size_t> order(lane.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return lane[a] != lane[b] ? lane[a] < lane[b] : start[a] < start[b];
    });
    IntervalColumns sorted;
    for (size_t i : order) sorted.Add(lane[i], start[i], dur[i], key[i]);
    *this = std::move(sorted);
  }
  Json ToJson(size_t total, size_t lanes) const {
    std::vector<size_t> per_lane(lanes, 0);
    for (uint32_t l : lane) ++per_lane[l];
    Json j;
    j["count"] = total;
    j["embedded"] = lane.size();
    j["lane_counts"] = per_lane;
    j["start"] = Base64(start);
    j["dur"] = Base64(dur);
    j["key"] = Base64(key);
    return j;
  }
};

// Where a layer drawn over the grains (messages, arrows, wait states, blocked periods, the critical
// path) goes when it has more items than the page embeds one by one: a summary of `buckets` cells
// per lane over the page's span (lod.h's CoverageCells and DensityCells), so that the page still
// shows where the layer is, and says how many items it summarised (docs/html.md).
struct SummaryGrid {
  size_t lanes = 0;
  uint32_t buckets = 0;
  uint64_t span = 1;
  Json Cells(const std::vector<uint8_t>& busy) const {
    return {{"buckets", buckets}, {"span", span}, {"busy", Base64(busy)}};
  }
  Json Coverage(std::vector<std::vector<QuantumInterval>> per_lane) const {
    return Cells(CoverageCells(std::move(per_lane), span, buckets));
  }
};

// The finest of 256, 1024 and 4096 buckets per lane within a quarter of the summary cell budget.
SummaryGrid MakeGrid(size_t lanes, uint64_t span, const HtmlLimits& lim) {
  uint32_t buckets = 256;
  while (buckets < 4096 && lanes * buckets * 4 <= lim.lod_cells / 4) buckets *= 4;
  return {lanes, buckets, std::max<uint64_t>(span, 1)};
}

Json Lanes(const Trace& t, const std::vector<GanttLane>& gantt) {
  Json lanes = Json::array();
  for (const GanttLane& lane : gantt) {
    const Location& loc = t.location(lane.location);
    // The lane's process (model: Location::group), for grouping: a rank's threads under it.
    const std::string_view group = loc.group < t.locations().size() ? t.str(t.location(LocationId(loc.group)).name)
                                                                     : t.str(loc.name);
    lanes.push_back({{"name", t.str(loc.name)},
                     {"group", group},
                     {"kind", LocationKindName(loc.kind)},
                     {"grains", lane.tasks.size()}});
  }
  return lanes;
}

Json Regions(const Trace& t) {
  Json regions = Json::array();
  for (const Region& r : t.regions()) regions.push_back({{"name", t.str(r.name)}, {"role", RegionRoleName(r.role)}});
  return regions;
}

// The grains one by one (when not too many) and the summary levels (when many).
Json Grains(const std::vector<GanttLane>& gantt, const PageClock& clock, const HtmlLimits& lim) {
  size_t total = 0;
  for (const GanttLane& lane : gantt) total += lane.tasks.size();
  std::vector<std::vector<QuantumInterval>> lanes(gantt.size());
  IntervalColumns raw;
  for (size_t l = 0; l < gantt.size(); ++l) {
    for (const GrainInstance& g : gantt[l].tasks) {
      const QuantumInterval iv{clock(g.start), clock.Length(g.start, g.stop), g.region.value};
      lanes[l].push_back(iv);
      if (total <= lim.raw_grains) raw.Add(static_cast<uint32_t>(l), iv.start, iv.dur, iv.key);
    }
  }
  double lo = 0, hi = 0;
  for (const GanttLane& lane : gantt) {
    for (const GrainInstance& g : lane.tasks) {
      const double d = static_cast<double>(std::max<TimeNs>(1, g.duration()));
      lo = lo == 0 ? d : std::min(lo, d);
      hi = std::max(hi, d);
    }
  }
  Json j = raw.ToJson(total, gantt.size());
  j["min_ns"] = lo;
  j["max_ns"] = hi;
  Json levels = Json::array();
  if (total >= lim.lod_min_grains && !gantt.empty()) {
    // The finest level that fits the cell budget with all its coarser levels (4/3 of it). With
    // the grains embedded, the page draws them once a view holds fewer than ~100000, so levels
    // finer than a wide screen's pixels at the full trace are not needed.
    constexpr uint32_t kCoarsest = 256;
    const uint32_t cap = raw.lane.size() == total ? 4096 : 65536;
    uint32_t finest = kCoarsest;
    while (finest * 4 <= cap && gantt.size() * finest * 4 * 4 / 3 <= lim.lod_cells) finest *= 4;
    uint64_t span = 1;
    for (const auto& lane : lanes)
      if (!lane.empty()) span = std::max<uint64_t>(span, uint64_t{lane.back().start} + lane.back().dur);
    for (const LodLevel& level :
         BuildLodPyramid(lanes, span, static_cast<double>(clock.quantum_ns), finest, kCoarsest)) {
      // Region keys as 16 bits: 65535 stands for every region beyond (one colour).
      std::vector<uint16_t> key(level.key.size());
      for (size_t i = 0; i < key.size(); ++i) key[i] = static_cast<uint16_t>(std::min<uint32_t>(level.key[i], 65535));
      levels.push_back({{"buckets", level.buckets},
                        {"span", span},
                        {"busy", Base64(level.busy)},
                        {"length", Base64(level.length)},
                        {"key", Base64(key)}});
    }
  }
  j["levels"] = std::move(levels);
  return j;
}

// Matched messages as arrows; beyond the limit, the density of their sends per sender lane.
Json Messages(const Trace& t, const PageClock& clock, const SummaryGrid& grid, const HtmlLimits& lim) {
  const MessageTable& m = t.messages();
  size_t matched = 0;
  for (size_t i = 0; i < m.size(); ++i) matched += m.matched(MessageId{static_cast<uint32_t>(i)});
  std::vector<uint32_t> from, to, send, recv;
  std::vector<std::vector<uint32_t>> sends(matched > lim.messages ? grid.lanes : 0);
  for (size_t i = 0; i < m.size(); ++i) {
    if (!m.matched(MessageId{static_cast<uint32_t>(i)})) continue;
    const uint32_t at = clock(t.events(m.sender[i]).time[m.send_event[i]]);
    if (matched > lim.messages) {
      if (m.sender[i].value < sends.size()) sends[m.sender[i].value].push_back(at);
      continue;
    }
    from.push_back(m.sender[i].value);
    to.push_back(m.receiver[i].value);
    send.push_back(at);
    recv.push_back(clock(t.events(m.receiver[i]).time[m.recv_event[i]]));
  }
  Json j{{"count", matched}, {"embedded", from.size()}, {"from", Base64(from)}, {"to", Base64(to)},
         {"send", Base64(send)}, {"recv", Base64(recv)}};
  if (matched > lim.messages) j["summary"] = grid.Cells(DensityCells(sends, grid.span, grid.buckets));
  return j;
}

// The arrows other than messages (columns from, to, t_from, t_to, kind): the trace's dependency
// edges between two locations (kind: 0 a GPU launch, 1 a GPU synchronisation, 2 any other: a
// fork, a lock hand-over), and per collective instance an arrow from its last member to begin
// (the one the others waited for) to each other member's end (kind 3): a GPU trace's streams
// under their rank, joined to it by their launches, and the ranks by their NCCL collectives.
Json Edges(const Trace& t, const PageClock& clock, const SummaryGrid& grid, const HtmlLimits& lim) {
  std::vector<uint32_t> from, to, t_from, t_to, kind;
  auto add = [&](LocationId a, EventIndex ea, LocationId b, EventIndex eb, uint32_t k) {
    from.push_back(a.value);
    to.push_back(b.value);
    t_from.push_back(clock(t.events(a).time[ea]));
    t_to.push_back(clock(t.events(b).time[eb]));
    kind.push_back(k);
  };
  const DependencyTable& d = t.dependencies();
  const CollectiveTable& c = t.collectives();
  const size_t total = d.size() + c.member_location.size();
  // Every arrow, to `add`: the trace's dependency edges between two locations, then per collective
  // instance one from its last arrival (the member the others waited for) to each other member.
  auto each_arrow = [&](auto&& add) {
    for (size_t i = 0; i < d.size(); ++i) {
      if (d.from_location[i] == d.to_location[i]) continue;
      const uint32_t k = d.kind[i] == DependencyKind::kGpuLaunch ? 0 : d.kind[i] == DependencyKind::kGpuSync ? 1 : 2;
      add(d.from_location[i], d.from_event[i], d.to_location[i], d.to_event[i], k);
    }
    for (uint32_t inst = 0; inst + 1 < c.first_member.size(); ++inst) {
      uint32_t last = c.first_member[inst];
      for (uint32_t m = last; m < c.first_member[inst + 1]; ++m)
        if (t.events(c.member_location[m]).time[c.member_begin[m]] > t.events(c.member_location[last]).time[c.member_begin[last]]) last = m;
      for (uint32_t m = c.first_member[inst]; m < c.first_member[inst + 1]; ++m)
        if (m != last) add(c.member_location[last], c.member_begin[last], c.member_location[m], c.member_end[m], 3);
    }
  };
  if (total <= lim.messages) each_arrow(add);
  Json j{{"count", total}, {"embedded", from.size()}, {"from", Base64(from)}, {"to", Base64(to)},
         {"t_from", Base64(t_from)}, {"t_to", Base64(t_to)}, {"kind", Base64(kind)}};
  if (total > lim.messages) {  // the density of the arrows' starts per lane
    std::vector<std::vector<uint32_t>> starts(grid.lanes);
    each_arrow([&](LocationId a, EventIndex ea, LocationId, EventIndex, uint32_t) {
      if (a.value < starts.size()) starts[a.value].push_back(clock(t.events(a).time[ea]));
    });
    j["summary"] = grid.Cells(DensityCells(starts, grid.span, grid.buckets));
  }
  return j;
}

Json Waits(const WaitStates* w, const SummaryGrid& grid, const PageClock& clock, const HtmlLimits& lim) {
  IntervalColumns c;
  const size_t total = w ? w->instances.size() : 0;
  std::vector<std::vector<QuantumInterval>> summary(total > lim.waits ? grid.lanes : 0);
  for (size_t k = 0; w && k < w->instances.size(); ++k) {
    const WaitInstance& i = w->instances[k];
    if (i.wait_ns <= 0) continue;
    const QuantumInterval iv{clock(i.start_ns), clock.Length(i.start_ns, i.start_ns + i.wait_ns),
                             static_cast<uint32_t>(i.kind)};
    if (total <= lim.waits) c.Add(i.waiter.value, iv.start, iv.dur, iv.key);
    else if (i.waiter.value < summary.size()) summary[i.waiter.value].push_back(iv);
  }
  c.SortByLane();
  Json j = c.ToJson(total, grid.lanes);
  if (total > lim.waits) j["summary"] = grid.Coverage(std::move(summary));
  Json kinds = Json::array();
  for (int k = 0; k < kWaitKindCount; ++k) kinds.push_back(WaitKindName(static_cast<WaitKind>(k)));
  j["kinds"] = std::move(kinds);
  return j;
}

// The periods each location was blocked (analysis/regions/time_classes.h), keyed by an index into
// `causes` (the call's name, or lock, condition, join, barrier).
Json Blocked(const Trace& t, const std::vector<std::vector<BlockedSpan>>& blocked, const SummaryGrid& grid,
             const PageClock& clock, const HtmlLimits& lim) {
  IntervalColumns c;
  size_t total = 0;
  for (const auto& spans : blocked) total += spans.size();
  std::vector<std::string_view> causes;
  std::vector<std::vector<QuantumInterval>> summary(total > lim.blocked ? grid.lanes : 0);
  for (size_t l = 0; l < blocked.size() && l < grid.lanes; ++l) {
    for (const BlockedSpan& b : blocked[l]) {
      if (total > lim.blocked) {
        summary[l].push_back({clock(b.start), clock.Length(b.start, b.stop), 0});
        continue;
      }
      const std::string_view cause = BlockedSpanCause(t, b);
      const size_t key = static_cast<size_t>(std::find(causes.begin(), causes.end(), cause) - causes.begin());
      if (key == causes.size()) causes.push_back(cause);
      c.Add(static_cast<uint32_t>(l), clock(b.start), clock.Length(b.start, b.stop), static_cast<uint32_t>(key));
    }
  }
  Json j = c.ToJson(total, grid.lanes);
  j["causes"] = causes;
  if (total > lim.blocked) j["summary"] = grid.Coverage(std::move(summary));
  return j;
}

// Critical-path stretches, per lane like the grains, and the joins between consecutive stretches
// on different lanes (from the end of one to the start of the next: columns from, to, t_from, t_to).
Json Path(const CriticalPath* cp, const SummaryGrid& grid, const PageClock& clock, const HtmlLimits& lim) {
  IntervalColumns c;
  std::vector<uint32_t> from, to, t_from, t_to;
  const size_t total = cp ? cp->path.size() : 0;
  std::vector<std::vector<QuantumInterval>> summary(total > lim.path_segments ? grid.lanes : 0);
  if (!summary.empty()) {
    for (const PathSegment& s : cp->path)
      if (s.location.value < summary.size())
        summary[s.location.value].push_back({clock(s.start_ns), clock.Length(s.start_ns, s.end_ns), 0});
  }
  if (cp && total <= lim.path_segments) {
    for (size_t i = 0; i < cp->path.size(); ++i) {
      const PathSegment& s = cp->path[i];
      c.Add(s.location.value, clock(s.start_ns), clock.Length(s.start_ns, s.end_ns),
            s.region.valid() ? s.region.value : UINT32_MAX);
      if (i == 0 || cp->path[i - 1].location == s.location) continue;
      from.push_back(cp->path[i - 1].location.value);
      to.push_back(s.location.value);
      t_from.push_back(clock(cp->path[i - 1].end_ns));
      t_to.push_back(clock(s.start_ns));
    }
    c.SortByLane();
  }
  Json j = c.ToJson(total, grid.lanes);
  if (total > lim.path_segments) j["summary"] = grid.Coverage(std::move(summary));
  j["joins"] = {{"count", from.size()}, {"from", Base64(from)}, {"to", Base64(to)}, {"t_from", Base64(t_from)},
                {"t_to", Base64(t_to)}};
  return j;
}

Result<Json> Parsed(Result<std::string> rendered) {
  GS_RETURN_IF_ERROR(rendered.status());
  return Json::parse(*rendered);
}

// The profile's JSON report keeping only the longest grains, in one list across processors; each
// processor keeps its grain count (rendering every grain of a big trace to JSON only to drop it
// would cost seconds).
Result<Json> ProfileTable(const Trace& t, const ExecutionProfile& profile, const RenderOptions& r,
                          const HtmlLimits& lim) {
  ExecutionProfile longest_only = profile;
  std::vector<TimeNs> lengths;
  std::vector<size_t> counts;
  for (const ProcessorProfile& proc : longest_only.processors) {
    counts.push_back(proc.grains.size());
    for (const GrainShare& g : proc.grains) lengths.push_back(g.grain.duration());
  }
  const size_t keep = std::min(lim.table_grains, lengths.size());
  if (keep > 0) {
    std::nth_element(lengths.begin(), lengths.begin() + static_cast<long>(keep - 1), lengths.end(), std::greater<>());
    const TimeNs shortest_kept = lengths[keep - 1];
    for (ProcessorProfile& proc : longest_only.processors) {
      std::erase_if(proc.grains, [&](const GrainShare& g) { return g.grain.duration() < shortest_kept; });
    }
  }
  GS_ASSIGN_OR_RETURN(Json p, Parsed(RenderProfile(t, longest_only, r)));
  Json longest = Json::array();
  for (size_t i = 0; i < p["processors"].size(); ++i) {
    Json& proc = p["processors"][i];
    for (Json& g : proc["grains"]) {
      g["processor"] = proc["name"];
      longest.push_back(std::move(g));
    }
    proc["grain_count"] = counts[i];
    proc.erase("grains");
  }
  std::stable_sort(longest.begin(), longest.end(),
                   [](const Json& a, const Json& b) { return a["time_ns"].get<int64_t>() > b["time_ns"].get<int64_t>(); });
  p["grain_count"] = lengths.size();
  if (longest.size() > keep) longest.erase(longest.begin() + static_cast<long>(keep), longest.end());
  p["longest_grains"] = std::move(longest);
  return p;
}

// The report's time per location and its region table, without the per-location rows of each
// region and past the first table_regions regions.
Json TimeTable(const Trace& t, const TimeBreakdown& breakdown, const RegionProfile& profile, const HtmlLimits& lim) {
  Json time;
  AddTimeAndRegionsJson(t, breakdown, profile, time);
  // The counts first: an ordered_json's members live in a vector, so adding one would move the
  // tables a reference points into.
  time["region_count"] = time["regions"].size();
  time["location_count"] = time["locations"].size();
  Json& regions = time["regions"];
  if (regions.size() > lim.table_regions) regions.erase(regions.begin() + static_cast<long>(lim.table_regions), regions.end());
  for (Json& r : regions) r.erase("locations");
  Json& locations = time["locations"];
  if (locations.size() > lim.table_locations)
    locations.erase(locations.begin() + static_cast<long>(lim.table_locations), locations.end());
  // The longest region instances (with their ids where the trace numbers them), a click away on the
  // page: `report --instances` lists them all.
  const RegionInstances longest = CollectRegionInstances(t, lim.table_instances);
  AddInstancesJson(t, longest, time);
  time["instance_count"] = longest.total;
  // A GPU trace's section of `report`: its ranks, streams and the kernels of most time.
  const GpuTime gpu = ComputeGpuTime(t);
  if (!gpu.empty()) {
    AddGpuTimeJson(t, gpu, time);
    Json& g = time["gpu"];
    g["kernel_count"] = g["kernels"].size();
    Json& kernels = g["kernels"];
    if (kernels.size() > lim.table_regions) kernels.erase(kernels.begin() + static_cast<long>(lim.table_regions), kernels.end());
  }
  return time;
}

// The critical path's summary: without the per-grain slack and the stretches (the timeline draws
// those), only their count.
Result<Json> CritPathTable(const Trace& t, const CriticalPath& cp, const RenderOptions& r) {
  CriticalPath summary_only = cp;
  summary_only.slack.clear();
  summary_only.path.clear();
  GS_ASSIGN_OR_RETURN(Json c, Parsed(RenderCriticalPath(t, summary_only, r)));
  c.erase("slack");
  c.erase("path");
  c["path_stretches"] = cp.path.size();
  return c;
}

// The waits report with its first table_sync_points sync points, each with its first
// table_classes classes (and the counts before the cut).
Result<Json> WaitsTable(const Trace& t, const WaitStates& waits, const Characterization& c, const RenderOptions& r,
                        const HtmlLimits& lim) {
  GS_ASSIGN_OR_RETURN(Json w, Parsed(RenderWaits(t, waits, c, r)));
  w["sync_point_count"] = w["sync_points"].size();
  for (Json& sp : w["sync_points"]) {
    sp["class_count"] = sp["classes"].size();
    if (sp["classes"].size() > lim.table_classes) {
      sp["classes"].erase(sp["classes"].begin() + static_cast<long>(lim.table_classes), sp["classes"].end());
    }
  }
  if (w["sync_points"].size() > lim.table_sync_points) {
    w["sync_points"].erase(w["sync_points"].begin() + static_cast<long>(lim.table_sync_points), w["sync_points"].end());
  }
  return w;
}

// The report tables, from the JSON reports (docs/json.md) minus their per-instance lists.
Result<Json> Tables(const HtmlReportInputs& in, const HtmlLimits& lim) {
  RenderOptions r;
  r.format = OutputFormat::kJson;
  r.source = in.source;
  const Trace& t = *in.trace;
  Json tables;
  GS_ASSIGN_OR_RETURN(tables["info"], Parsed(RenderInfo(t, *in.summary, r)));
  if (in.profile) {
    GS_ASSIGN_OR_RETURN(tables["profile"], ProfileTable(t, *in.profile, r, lim));
  }
  if (in.time && in.regions) tables["time"] = TimeTable(t, *in.time, *in.regions, lim);
  if (in.critical_path) {
    GS_ASSIGN_OR_RETURN(tables["critpath"], CritPathTable(t, *in.critical_path, r));
  }
  if (in.waits && in.characterization) {
    GS_ASSIGN_OR_RETURN(tables["waits"], WaitsTable(t, *in.waits, *in.characterization, r, lim));
  }
  if (in.prediction) {
    GS_ASSIGN_OR_RETURN(tables["prediction"], Parsed(RenderPrediction(*in.prediction, r)));
  }
  return tables;
}

// JSON inside <script>: "</" would end the element early.
std::string ScriptSafe(std::string json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/') {
      out += "<\\/";
      ++i;
    } else {
      out += json[i];
    }
  }
  return out;
}

void Replace(std::string& page, std::string_view placeholder, std::string_view value) {
  const size_t at = page.find(placeholder);
  if (at != std::string::npos) page.replace(at, placeholder.size(), value);
}

}  // namespace

Result<std::string> RenderHtmlReport(const HtmlReportInputs& in, const HtmlLimits& lim) {
  const Trace& t = *in.trace;
  const PageClock clock = MakeClock(t);
  const std::vector<GanttLane> gantt = BuildGantt(t);
  Json data;
  data["version"] = 1;
  data["source"] = in.source;
  data["format"] = t.format();
  data["quantum_ns"] = clock.quantum_ns;
  data["origin_ns"] = t.origin_ns();
  data["span"] = clock(t.end_ns());
  data["lanes"] = Lanes(t, gantt);
  data["regions"] = Regions(t);
  data["grains"] = Grains(gantt, clock, lim);
  data["has_grains"] = HasGrainRegions(t);  // else the boxes are the outermost code regions
  const SummaryGrid grid = MakeGrid(gantt.size(), uint64_t{clock(t.end_ns())} + 1, lim);
  data["messages"] = Messages(t, clock, grid, lim);
  data["edges"] = Edges(t, clock, grid, lim);
  data["waits"] = Waits(in.waits, grid, clock, lim);
  data["blocked"] = Blocked(t, ComputeBlockedSpans(t), grid, clock, lim);
  data["path"] = Path(in.critical_path, grid, clock, lim);
  GS_ASSIGN_OR_RETURN(data["tables"], Tables(in, lim));
  data["speedup_svg"] = in.prediction ? SpeedupSvg(*in.prediction, "Projected speedup: " + in.source) : "";
  data["notes"] = in.notes;
  std::string page(kHtmlPage);
  // The data last: it is the largest and must not be searched for placeholders.
  Replace(page, "@TITLE@", EscapeMarkup(in.source));
  Replace(page, "@CSS@", kHtmlCss);
  Replace(page, "@JS@", kHtmlJs);
  Replace(page, "@TABLES_JS@", kHtmlTablesJs);
  Replace(page, "@DATA@", ScriptSafe(data.dump(-1, ' ', false, Json::error_handler_t::replace)));
  return page;
}

}  // namespace grainscope
