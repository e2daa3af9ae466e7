#include <algorithm>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "analysis/critpath/path_by_process.h"
#include "base/parallel.h"
#include "model/rendezvous.h"
#include "report/region_name.h"
#include "report/location_column.h"
#include "report/critpath_report.h"
#include "report/json_writer.h"
#include "report/rows.h"

namespace grainscope {
namespace {

using json = nlohmann::ordered_json;

// Where the path ran by process (path_by_process.h) and where it crossed between processes.
void AddProcessesJson(const Trace& t, const CriticalPath& cp, JsonReportWriter& w) {
  const PathByProcess split = SplitPathByProcess(t, cp);
  w.Array("processes", split.processes.size(), [&](size_t i) {
    const ProcessPathTime& p = split.processes[i];
    return json{{"process", LocationName(t, p.process)}, {"time_ns", p.time_ns}, {"fraction", p.fraction}};
  });
  w.Array("crossings", split.crossings.size(), [&](size_t i) {
    const PathCrossing& c = split.crossings[i];
    return json{{"at_ns", c.at_ns - t.origin_ns()}, {"from", LocationName(t, c.from)}, {"to", LocationName(t, c.to)}};
  });
}

// Written member by member (json_writer.h): a path of millions of segments is never one DOM.
void CritPathJson(const Trace& t, const CriticalPath& cp, const RenderOptions& o, TextSink& out) {
  JsonReportWriter w(out);
  w.Member("length_ns", cp.length_ns);
  w.Member("measured_ns", cp.measured_ns);
  w.Member("transfer_ns", cp.transfer_ns);
  w.Member("end_location", LocationName(t, cp.end_location));
  w.Member("load_balance", cp.load_balance);
  w.Member("transfer_efficiency", cp.transfer_efficiency);
  w.Member("serialization_efficiency", cp.serialization_efficiency);
  // Only where messages could be rendezvous sends (a run of one rank has none to cite it for).
  if (const std::optional<EagerLimit> eager = TraceEagerLimit(t); eager && cp.message_count > 0) {
    w.Member("eager_limit_bytes", eager->bytes);
    w.Member("eager_limit_source", eager->source);
    w.Member("rendezvous_sends", cp.rendezvous_sends);
  }
  w.Array("path", cp.path.size(), [&](size_t i) {
    const PathSegment& s = cp.path[i];
    return json{{"location", LocationName(t, s.location)},
                {"location_id", t.location(s.location).external_id},
                {"region", RegionName(t, s.region)},
                {"start_ns", s.start_ns - t.origin_ns()},
                {"end_ns", s.end_ns - t.origin_ns()},
                {"time_ns", s.time_ns}};
  });
  w.Array("profile", cp.profile.size(), [&](size_t i) {
    const RegionPathTime& r = cp.profile[i];
    return json{{"region", RegionName(t, r.region)}, {"time_ns", r.time_ns}, {"fraction", r.fraction}};
  });
  w.Array("imbalance", cp.imbalance.size(), [&](size_t i) {
    const RegionImbalance& r = cp.imbalance[i];
    return json{{"region", RegionName(t, r.region)}, {"on_path_ns", r.on_path_ns}, {"mean_ns", r.mean_ns},
                {"imbalance_ns", r.imbalance_ns}};
  });
  w.Array("slack", cp.slack.size(), [&](size_t i) {
    const GrainSlack& g = cp.slack[i];
    return json{{"location", LocationName(t, g.grain.location)},
                {"region", RegionName(t, g.grain.region)},
                {"start_ns", g.grain.start - t.origin_ns()},
                {"earliest_ns", g.earliest_ns},
                {"slack_ns", g.slack_ns}};
  });
  w.Array("locations", cp.compute_ns.size(), [&](size_t l) {
    return json{{"location", LocationName(t, LocationId(static_cast<uint32_t>(l)))},
                {"id", t.location(LocationId(static_cast<uint32_t>(l))).external_id},
                {"compute_ns", cp.compute_ns[l]}};
  });
  AddProcessesJson(t, cp, w);
  w.Finish(o.notes);
}

void CritPathCsv(const Trace& t, const CriticalPath& cp, TextSink& out) {
  out.text() += "location,region,start_ns,end_ns,time_ns\n";
  AppendInOrder(out, cp.path.size(), Threads(), [&](size_t i, std::string& text) {
    const PathSegment& s = cp.path[i];
    fmt::format_to(std::back_inserter(text), "{},{},{},{},{}\n", CsvField(LocationName(t, s.location)),
                   CsvField(RegionName(t, s.region)), s.start_ns - t.origin_ns(), s.end_ns - t.origin_ns(), s.time_ns);
  });
}

// The headline: the path's length against the measured run, and the three efficiencies.
void AppendSummary(std::string& out, const Trace& t, const CriticalPath& cp) {
  auto line = [&](std::string_view key, const std::string& value) { out += fmt::format("  {:<26} {}\n", key, value); };
  line("length", fmt::format("{}   (measured run {}; ends on {})", FormatDuration(cp.length_ns),
                             FormatDuration(cp.measured_ns), LocationName(t, cp.end_location)));
  line("transfer efficiency", fmt::format("{:.3f}   (length / measured run)", cp.transfer_efficiency));
  line("serialisation efficiency", fmt::format("{:.3f}   (max compute / length)", cp.serialization_efficiency));
  line("load balance", fmt::format("{:.3f}   (mean compute / max compute)", cp.load_balance));
  // Only where messages could be rendezvous sends (a run of one rank has none to cite it for).
  if (const std::optional<EagerLimit> eager = TraceEagerLimit(t); eager && cp.message_count > 0) {
    line("rendezvous sends", fmt::format("{}   (above the eager limit of {} B, {}; waiting for the receive "
                                         "is not work)", cp.rendezvous_sends, eager->bytes, eager->source));
  }
}

void AppendProfile(std::string& out, const Trace& t, const CriticalPath& cp, size_t top) {
  out += fmt::format("\n  Profile: time on the path per region\n  {:>14} {:>8}  {}\n", "time", "% path", "region");
  AppendRows(out, cp.profile.size(), top, [&](size_t i) {
    const RegionPathTime& r = cp.profile[i];
    return fmt::format("  {:>14} {:>8}  {}\n", FormatDuration(r.time_ns), FormatPercent(r.fraction),
                       TextRegionName(t, r.region));
  });
}

// The regions with more time on the path than their mean per location; no table when none has.
void AppendImbalance(std::string& out, const Trace& t, const CriticalPath& cp, size_t top) {
  if (cp.imbalance.empty()) return;
  out += fmt::format("\n  Imbalance: time on the path beyond the mean per location\n  {:>14} {:>14}  {}\n",
                     "imbalance", "mean", "region");
  AppendRows(out, cp.imbalance.size(), top, [&](size_t i) {
    const RegionImbalance& r = cp.imbalance[i];
    return fmt::format("  {:>14} {:>14}  {}\n", FormatDuration(r.imbalance_ns), FormatDuration(r.mean_ns),
                       TextRegionName(t, r.region));
  });
}

// Where the path ran by process and where it went from one to another; only for a trace of
// several processes (ranks).
void AppendProcesses(std::string& out, const Trace& t, const CriticalPath& cp, size_t top, size_t lw) {
  bool several = false;
  for (const Location& l : t.locations()) several |= l.group != t.locations().front().group;
  if (!several) return;
  const PathByProcess split = SplitPathByProcess(t, cp);
  out += fmt::format("\n  By process: time on the path per process (a rank, its threads and GPU streams)\n"
                     "  {:>14} {:>8}  {}\n", "time", "% path", "process");
  AppendRows(out, split.processes.size(), top, [&](size_t i) {
    const ProcessPathTime& p = split.processes[i];
    return fmt::format("  {:>14} {:>8}  {}\n", FormatDuration(p.time_ns), FormatPercent(p.fraction), LocationName(t, p.process));
  });
  out += fmt::format("\n  Crossings: the path went from one process to another {} time{}\n", split.crossings.size(),
                     split.crossings.size() == 1 ? "" : "s");
  if (split.crossings.empty()) return;
  out += fmt::format("  {:>14}  {:<{}} {}\n", "at", "from", lw, "to");
  AppendRows(out, split.crossings.size(), top, [&](size_t i) {
    const PathCrossing& c = split.crossings[i];
    return fmt::format("  {:>14}  {:<{}} {}\n", FormatDuration(c.at_ns - t.origin_ns()), LocationName(t, c.from), lw,
                       LocationName(t, c.to));
  });
}

// The path's stretches in time order; `lw` is the location column's width.
void AppendPath(std::string& out, const Trace& t, const CriticalPath& cp, size_t top, size_t lw) {
  out += fmt::format("\n  Path ({} stretches)\n  {:>14} {:>14} {:>14}  {:<{}} {}\n", cp.path.size(), "start", "end",
                     "on path", "location", lw, "region");
  AppendRows(out, cp.path.size(), top, [&](size_t i) {
    const PathSegment& s = cp.path[i];
    return fmt::format("  {:>14} {:>14} {:>14}  {:<{}} {}\n", FormatDuration(s.start_ns - t.origin_ns()),
                       FormatDuration(s.end_ns - t.origin_ns()), FormatDuration(s.time_ns),
                       LocationName(t, s.location), lw, TextRegionName(t, s.region));
  });
}

// The grains with slack, most first; the critical ones (no slack) are only counted.
void AppendSlack(std::string& out, const Trace& t, const CriticalPath& cp, size_t top, size_t lw) {
  if (cp.slack.empty()) return;
  std::vector<const GrainSlack*> order;
  for (const GrainSlack& g : cp.slack)
    if (g.slack_ns > 0) order.push_back(&g);
  std::stable_sort(order.begin(), order.end(), [](const GrainSlack* a, const GrainSlack* b) {
    return a->slack_ns > b->slack_ns;
  });
  out += fmt::format("\n  Slack: {} of {} grains have none (they are critical)\n", cp.slack.size() - order.size(),
                     cp.slack.size());
  if (!order.empty())
    out += fmt::format("  {:>14} {:>14}  {:<{}} {}\n", "slack", "start", "location", lw, "grain (most slack first)");
  AppendRows(out, order.size(), top, [&](size_t i) {
    const GrainSlack& g = *order[i];
    return fmt::format("  {:>14} {:>14}  {:<{}} {}\n", FormatDuration(g.slack_ns),
                       FormatDuration(g.grain.start - t.origin_ns()), LocationName(t, g.grain.location), lw,
                       TextRegionName(t, g.grain.region));
  });
}

std::string CritPathText(const Trace& t, const CriticalPath& cp, const RenderOptions& o) {
  std::string out = fmt::format("Critical path: {}\n", o.source);
  AppendSummary(out, t, cp);
  AppendProfile(out, t, cp, o.top);
  AppendImbalance(out, t, cp, o.top);
  const size_t lw = LocationColumnWidth(t, 16);
  AppendProcesses(out, t, cp, o.top, lw);
  AppendPath(out, t, cp, o.top, lw);
  AppendSlack(out, t, cp, o.top, lw);
  return out;
}

}  // namespace

Status WriteCriticalPath(const Trace& t, const CriticalPath& cp, const RenderOptions& o, TextSink& out) {
  switch (o.format) {
    case OutputFormat::kText: out.text() += CritPathText(t, cp, o); return OkStatus();
    case OutputFormat::kJson: CritPathJson(t, cp, o, out); return OkStatus();
    case OutputFormat::kCsv: CritPathCsv(t, cp, out); return OkStatus();
    default:
      return InvalidArgument(
          fmt::format("critpath has no {} output (use text, json or csv)", OutputFormatName(o.format)));
  }
}

Result<std::string> RenderCriticalPath(const Trace& t, const CriticalPath& cp, const RenderOptions& o) {
  return CollectText([&](TextSink& out) { return WriteCriticalPath(t, cp, o, out); });
}

}  // namespace grainscope
