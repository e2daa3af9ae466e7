#include <algorithm>
#include <array>
#include <map>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/gantt_report.h"
#include "report/grain_id.h"
#include "report/json_writer.h"
#include "report/rows.h"
#include "report/svg.h"

namespace grainscope {
namespace {

int64_t ProcessorId(const Trace& t, LocationId l) { return t.location(l).external_id; }

size_t TaskCount(const std::vector<GanttLane>& lanes) {
  size_t n = 0;
  for (const GanttLane& lane : lanes) n += lane.tasks.size();
  return n;
}

// The seed's Schedule file (MacSchedule 1.0, figure 4.5c).
void GanttSeed(const Trace& t, const std::vector<GanttLane>& lanes, int64_t unit_ns, TextSink& sink) {
  sink.text() += "Schedule < Identifies this as a schedule file >\n";
  sink.Row("{} < Total Number of Tasks on All Processors >\n", TaskCount(lanes));
  sink.Row("{} 1.0 < Number of Processors, Transfer Rate >\n", lanes.size());
  for (const GanttLane& lane : lanes) {
    sink.Row("{} < Processor# >\n", ProcessorId(t, lane.location));
    sink.Row("{} < Number of Tasks on this processor >\n", lane.tasks.size());
    for (const GrainInstance& g : lane.tasks)
      sink.Row("{} {} {} 0 0\n", g.id, ToUnit(g.start - t.origin_ns(), unit_ns), ToUnit(g.stop - t.origin_ns(), unit_ns));
  }
}

using Blocked = std::vector<std::vector<BlockedSpan>>;

const std::vector<BlockedSpan>& BlockedOf(const Blocked& blocked, const GanttLane& lane) {
  static const std::vector<BlockedSpan> kNone;
  return lane.location.value < blocked.size() ? blocked[lane.location.value] : kNone;
}

// Written lane by lane, task by task (json_writer.h): a chart of millions of grains is never one DOM.
void GanttJson(const Trace& t, const std::vector<GanttLane>& lanes, const Blocked& blocked, const RenderOptions& o,
               TextSink& out) {
  JsonReportWriter w(out);
  w.ObjectArray("processors", lanes.size(), [&](size_t i, JsonReportWriter& p) {
    const GanttLane& lane = lanes[i];
    p.Member("id", ProcessorId(t, lane.location));
    p.Member("name", t.str(t.location(lane.location).name));
    p.Array("tasks", lane.tasks.size(), [&](size_t k) {
      const GrainInstance& g = lane.tasks[k];
      return JsonReportWriter::Json{{"grain", GrainIdJson(g.id)},
                                    {"region", t.str(t.region(g.region).name)},
                                    {"start_ns", g.start - t.origin_ns()},
                                    {"stop_ns", g.stop - t.origin_ns()}};
    });
    const std::vector<BlockedSpan>& spans = BlockedOf(blocked, lane);
    p.Array("blocked", spans.size(), [&](size_t k) {
      const BlockedSpan& b = spans[k];
      return JsonReportWriter::Json{{"start_ns", b.start - t.origin_ns()}, {"stop_ns", b.stop - t.origin_ns()},
                                    {"in", BlockedSpanCause(t, b)}};
    });
  });
  w.Finish(o.notes);
}

// A row per grain (kind "grain") and per blocked period (kind "blocked", no grain; blocked_in
// says in what), each processor's grains first.
void GanttCsv(const Trace& t, const std::vector<GanttLane>& lanes, const Blocked& blocked, TextSink& sink) {
  sink.text() += "processor,grain,start_ns,stop_ns,kind,blocked_in,region\n";
  for (const GanttLane& lane : lanes) {
    for (const GrainInstance& g : lane.tasks)
      sink.Row("{},{},{},{},grain,,{}\n", ProcessorId(t, lane.location), GrainIdCsv(g.id), g.start - t.origin_ns(),
               g.stop - t.origin_ns(), CsvField(t.str(t.region(g.region).name)));
    for (const BlockedSpan& b : BlockedOf(blocked, lane))
      sink.Row("{},,{},{},blocked,{},\n", ProcessorId(t, lane.location), b.start - t.origin_ns(),
               b.stop - t.origin_ns(), CsvField(BlockedSpanCause(t, b)));
  }
}

// Where column `c` of `width` starts, `span * c / width` without overflow: a trace whose time
// zero lies far before its events (epoch clocks) has spans near the int64 range.
TimeNs ColumnStart(TimeNs span, int c, int width) {
  return static_cast<TimeNs>(static_cast<__int128>(span) * c / width);
}

// How much of each of `width` columns over [origin, origin + span) the intervals [start, stop)
// that `each` hands out cover, added to `cover`.
template <typename ForEach>
void AddCoverage(TimeNs origin, TimeNs span, std::vector<TimeNs>& cover, ForEach&& each) {
  const int width = static_cast<int>(cover.size());
  each([&](TimeNs start, TimeNs stop) {
    if (stop <= start) return;
    // Only the columns the interval touches.
    int c = static_cast<int>(std::clamp<__int128>(static_cast<__int128>(start - origin) * width / span, 0, width - 1));
    for (; c < width; ++c) {
      const TimeNs c0 = origin + ColumnStart(span, c, width), c1 = origin + ColumnStart(span, c + 1, width);
      if (c0 >= stop) break;
      cover[c] += std::max<TimeNs>(0, std::min(c1, stop) - std::max(c0, start));
    }
  });
}

// The chart's classes of time: the report's time classes (analysis/regions/time_classes.h)
// folded into what a lane shows.
enum Shade { kWork, kCommunication, kBlocked, kShades };
Shade ShadeOf(TimeClass c) {
  switch (c) {
    case TimeClass::kComputation:
    case TimeClass::kGpu: return kWork;
    case TimeClass::kSynchronization:
    case TimeClass::kThreadSync: return kBlocked;
    case TimeClass::kIdle: return kShades;
    default: return kCommunication;
  }
}

// Per lane and shade, the time of each of `width` columns over [origin, origin + span).
using LaneColumns = std::vector<std::array<std::vector<TimeNs>, kShades>>;
LaneColumns ClassColumns(const Trace& t, TimeNs span, int width) {
  LaneColumns columns(t.locations().size());
  for (auto& lane : columns)
    for (auto& shade : lane) shade.assign(width, 0);
  ForEachClassStretch(t, [&](LocationId l, TimeClass c, TimeNs start, TimeNs stop) {
    const Shade s = ShadeOf(c);
    if (s == kShades) return;
    AddCoverage(t.origin_ns(), span, columns[l.value][s], [&](auto add) { add(start, stop); });
  });
  return columns;
}

// One lane of the chart: per column the largest of work (computation), communication (MPI calls
// of every other class), blocked (synchronisation) and idle time -- the classes `report` sums, so
// chart and report agree: '#', '=', '-' or '.' (ties in that order; a column of no time is '.').
std::string LaneBar(TimeNs span, int width, const std::array<std::vector<TimeNs>, kShades>& lane) {
  std::string bar;
  for (int c = 0; c < width; ++c) {
    const TimeNs all = ColumnStart(span, c + 1, width) - ColumnStart(span, c, width);
    const TimeNs work = lane[kWork][c], comm = lane[kCommunication][c], block = lane[kBlocked][c];
    const TimeNs idle = std::max<TimeNs>(0, all - work - comm - block);
    const TimeNs most = std::max({work, comm, block, idle});
    if (most == 0 || (idle == most && work < most && comm < most && block < most)) bar += '.';
    else if (work == most) bar += '#';
    else if (comm == most) bar += '=';
    else bar += '-';
  }
  return bar;
}

// "Blocked: 60.000 ms in 4 periods (lock 60.000 ms in 4)": the causes by time, largest first.
std::string BlockedSummary(const Trace& t, const std::vector<GanttLane>& lanes, const Blocked& blocked, size_t top) {
  std::map<std::string_view, std::pair<TimeNs, size_t>> by_cause;
  TimeNs total = 0;
  size_t periods = 0;
  for (const GanttLane& lane : lanes) {
    for (const BlockedSpan& b : BlockedOf(blocked, lane)) {
      auto& [ns, n] = by_cause[BlockedSpanCause(t, b)];
      ns += b.stop - b.start;
      ++n;
      total += b.stop - b.start;
      ++periods;
    }
  }
  if (periods == 0) return {};
  std::vector<std::pair<std::string_view, std::pair<TimeNs, size_t>>> causes(by_cause.begin(), by_cause.end());
  std::stable_sort(causes.begin(), causes.end(), [](const auto& a, const auto& b) { return a.second.first > b.second.first; });
  std::string out = fmt::format("\nBlocked ('-'): {} in {} period{}, not work:\n", FormatDuration(total), periods,
                                periods == 1 ? "" : "s");
  const size_t shown = RowsShown(causes.size(), top);
  for (size_t i = 0; i < shown; ++i) {
    out += fmt::format("  {:>14} in {:>8} period{}  {}\n", FormatDuration(causes[i].second.first),
                       causes[i].second.second, causes[i].second.second == 1 ? " " : "s", causes[i].first);
  }
  return out + RowsLeftOut(causes.size(), shown);
}

// A chart of `width` columns per lane from the origin to the last stop (of a grain or a blocked
// period): LaneBar's shades; then the grains (a trace without grains: its outermost code regions).
std::string GanttText(const Trace& t, const std::vector<GanttLane>& lanes, const Blocked& blocked,
                      const RenderOptions& o) {
  constexpr int kWidth = 64;
  TimeNs end = t.origin_ns();
  bool any_blocked = false;
  for (const GanttLane& lane : lanes) {
    for (const GrainInstance& g : lane.tasks) end = std::max(end, g.stop);
    for (const BlockedSpan& b : BlockedOf(blocked, lane)) {
      end = std::max(end, b.stop);
      any_blocked = true;
    }
  }
  const TimeNs span = std::max<TimeNs>(1, end - t.origin_ns());
  const bool grains = HasGrainRegions(t);
  std::string out =
      grains ? fmt::format("Gantt chart: {} ({} processors, {} grains, 0 .. {})\n", o.source, lanes.size(),
                           TaskCount(lanes), FormatDuration(span))
             : fmt::format("Gantt chart: {} ({} locations, 0 .. {}; no grains: the table lists the {} outermost "
                           "code regions)\n", o.source, lanes.size(), FormatDuration(span), TaskCount(lanes));
  const LaneColumns columns = ClassColumns(t, span, kWidth);
  bool any_communication = false;
  for (const GanttLane& lane : lanes)
    for (TimeNs c : columns[lane.location.value][kCommunication]) any_communication |= c > 0;
  if (any_blocked || any_communication)
    out += "  # work   = communication   - blocked (lock, condition, join, barrier, MPI wait)   . idle\n";
  size_t name_width = 0;
  for (const GanttLane& lane : lanes) name_width = std::max(name_width, t.str(t.location(lane.location).name).size());
  const size_t lanes_shown = RowsShown(lanes.size(), o.top);
  for (size_t i = 0; i < lanes_shown; ++i) {
    const GanttLane& lane = lanes[i];
    out += fmt::format("  {:<{}} |{}|\n", t.str(t.location(lane.location).name), name_width,
                       LaneBar(span, kWidth, columns[lane.location.value]));
  }
  out += RowsLeftOut(lanes.size(), lanes_shown);
  out += fmt::format("\n  {:>10} {:>8} {:>14} {:>14} {:>14}  {}\n", "processor", "grain", "start", "stop", "time",
                     "region");
  const size_t tasks = TaskCount(lanes), tasks_shown = RowsShown(tasks, o.top);
  size_t row = 0;
  for (const GanttLane& lane : lanes) {
    for (const GrainInstance& g : lane.tasks) {
      if (row == tasks_shown) break;
      ++row;
      out += fmt::format("  {:>10} {:>8} {:>14} {:>14} {:>14}  {}\n", ProcessorId(t, lane.location),
                         GrainIdText(g.id), FormatDuration(g.start - t.origin_ns()),
                         FormatDuration(g.stop - t.origin_ns()), FormatDuration(g.duration()),
                         t.str(t.region(g.region).name));
    }
  }
  return out + RowsLeftOut(tasks, tasks_shown) + BlockedSummary(t, lanes, blocked, o.top);
}

}  // namespace

Status WriteGantt(const Trace& t, const std::vector<GanttLane>& lanes, const Blocked& blocked, const RenderOptions& o,
                  TextSink& out) {
  switch (o.format) {
    case OutputFormat::kText: out.text() += GanttText(t, lanes, blocked, o); return OkStatus();
    case OutputFormat::kJson: GanttJson(t, lanes, blocked, o, out); return OkStatus();
    case OutputFormat::kCsv: GanttCsv(t, lanes, blocked, out); return OkStatus();
    case OutputFormat::kSeed: GanttSeed(t, lanes, o.unit_ns, out); return OkStatus();
    case OutputFormat::kSvg: out.text() += GanttSvg(t, lanes, blocked, "Gantt chart: " + o.source); return OkStatus();
    default:
      return InvalidArgument(fmt::format("gantt has no {} output (use text, json, csv, seed or svg)",
                                         OutputFormatName(o.format)));
  }
}

Result<std::string> RenderGantt(const Trace& t, const std::vector<GanttLane>& lanes, const Blocked& blocked,
                                const RenderOptions& o) {
  return CollectText([&](TextSink& out) { return WriteGantt(t, lanes, blocked, o, out); });
}

}  // namespace grainscope
