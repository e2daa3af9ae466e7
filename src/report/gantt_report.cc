#include <algorithm>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/gantt_report.h"
#include "report/rows.h"
#include "report/svg.h"

namespace grainscope {
namespace {

int64_t GrainId(const Trace& t, const GrainInstance& g) { return t.region(g.region).external_id; }
int64_t ProcessorId(const Trace& t, LocationId l) { return t.location(l).external_id; }

size_t TaskCount(const std::vector<GanttLane>& lanes) {
  size_t n = 0;
  for (const GanttLane& lane : lanes) n += lane.tasks.size();
  return n;
}

// The seed's Schedule file (MacSchedule 1.0, figure 4.5c).
std::string GanttSeed(const Trace& t, const std::vector<GanttLane>& lanes, int64_t unit_ns) {
  std::string out = "Schedule < Identifies this as a schedule file >\n";
  out += fmt::format("{} < Total Number of Tasks on All Processors >\n", TaskCount(lanes));
  out += fmt::format("{} 1.0 < Number of Processors, Transfer Rate >\n", lanes.size());
  for (const GanttLane& lane : lanes) {
    out += fmt::format("{} < Processor# >\n", ProcessorId(t, lane.location));
    out += fmt::format("{} < Number of Tasks on this processor >\n", lane.tasks.size());
    for (const GrainInstance& g : lane.tasks) {
      out += fmt::format("{} {} {} 0 0\n", GrainId(t, g), ToUnit(g.start - t.origin_ns(), unit_ns),
                         ToUnit(g.stop - t.origin_ns(), unit_ns));
    }
  }
  return out;
}

std::string GanttJson(const Trace& t, const std::vector<GanttLane>& lanes, const RenderOptions& o) {
  nlohmann::ordered_json procs = nlohmann::ordered_json::array();
  for (const GanttLane& lane : lanes) {
    nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
    for (const GrainInstance& g : lane.tasks) {
      tasks.push_back({{"grain", GrainId(t, g)},
                       {"start_ns", g.start - t.origin_ns()},
                       {"stop_ns", g.stop - t.origin_ns()}});
    }
    nlohmann::ordered_json pj;
    pj["id"] = ProcessorId(t, lane.location);
    pj["name"] = t.str(t.location(lane.location).name);
    pj["tasks"] = std::move(tasks);
    procs.push_back(std::move(pj));
  }
  nlohmann::ordered_json j;
  j["processors"] = std::move(procs);
  return FinishJson(j, o.notes);
}

std::string GanttCsv(const Trace& t, const std::vector<GanttLane>& lanes) {
  std::string out = "processor,grain,start_ns,stop_ns\n";
  for (const GanttLane& lane : lanes)
    for (const GrainInstance& g : lane.tasks)
      out += fmt::format("{},{},{},{}\n", ProcessorId(t, lane.location), GrainId(t, g), g.start - t.origin_ns(),
                         g.stop - t.origin_ns());
  return out;
}

// Where column `c` of `width` starts, `span * c / width` without overflow: a trace whose time
// zero lies far before its events (epoch clocks) has spans near the int64 range.
TimeNs ColumnStart(TimeNs span, int c, int width) {
  return static_cast<TimeNs>(static_cast<__int128>(span) * c / width);
}

// A chart of `width` columns per lane from the origin to the last stop: '#' where a grain runs
// during most of the column's time span, '.' where the processor is idle.
std::string GanttText(const Trace& t, const std::vector<GanttLane>& lanes, const RenderOptions& o) {
  constexpr int kWidth = 64;
  TimeNs end = t.origin_ns();
  for (const GanttLane& lane : lanes)
    for (const GrainInstance& g : lane.tasks) end = std::max(end, g.stop);
  const TimeNs span = std::max<TimeNs>(1, end - t.origin_ns());
  std::string out = fmt::format("Gantt chart: {} ({} processors, {} grains, 0 .. {})\n", o.source, lanes.size(),
                                TaskCount(lanes), FormatDuration(span));
  size_t name_width = 0;
  for (const GanttLane& lane : lanes) name_width = std::max(name_width, t.str(t.location(lane.location).name).size());
  const size_t lanes_shown = RowsShown(lanes.size(), o.top);
  for (size_t i = 0; i < lanes_shown; ++i) {
    const GanttLane& lane = lanes[i];
    std::vector<TimeNs> busy(kWidth, 0);
    for (const GrainInstance& g : lane.tasks) {
      for (int c = 0; c < kWidth; ++c) {
        const TimeNs c0 = t.origin_ns() + ColumnStart(span, c, kWidth);
        const TimeNs c1 = t.origin_ns() + ColumnStart(span, c + 1, kWidth);
        busy[c] += std::max<TimeNs>(0, std::min(c1, g.stop) - std::max(c0, g.start));
      }
    }
    std::string bar;
    for (int c = 0; c < kWidth; ++c) {
      const TimeNs width = ColumnStart(span, c + 1, kWidth) - ColumnStart(span, c, kWidth);
      bar += 2 * busy[c] >= width && busy[c] > 0 ? '#' : '.';
    }
    out += fmt::format("  {:<{}} |{}|\n", t.str(t.location(lane.location).name), name_width, bar);
  }
  out += RowsLeftOut(lanes.size(), lanes_shown);
  out += fmt::format("\n  {:>10} {:>8} {:>14} {:>14} {:>14}\n", "processor", "grain", "start", "stop", "time");
  const size_t tasks = TaskCount(lanes), tasks_shown = RowsShown(tasks, o.top);
  size_t row = 0;
  for (const GanttLane& lane : lanes) {
    for (const GrainInstance& g : lane.tasks) {
      if (row == tasks_shown) break;
      ++row;
      out += fmt::format("  {:>10} {:>8} {:>14} {:>14} {:>14}\n", ProcessorId(t, lane.location), GrainId(t, g),
                         FormatDuration(g.start - t.origin_ns()), FormatDuration(g.stop - t.origin_ns()),
                         FormatDuration(g.duration()));
    }
  }
  return out + RowsLeftOut(tasks, tasks_shown);
}

}  // namespace

Result<std::string> RenderGantt(const Trace& t, const std::vector<GanttLane>& lanes, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return GanttText(t, lanes, o);
    case OutputFormat::kJson: return GanttJson(t, lanes, o);
    case OutputFormat::kCsv: return GanttCsv(t, lanes);
    case OutputFormat::kSeed: return GanttSeed(t, lanes, o.unit_ns);
    case OutputFormat::kSvg: return GanttSvg(t, lanes, "Gantt chart: " + o.source);
    default:
      return InvalidArgument(fmt::format("gantt has no {} output (use text, json, csv, seed or svg)",
                                         OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
