// The projected schedule: text (summary, task table, ASCII Gantt chart, speedup table), JSON
// (SPEC.md §9: heuristic, processors, makespan, optimal, tasks, speedup) and the seed's Schedule
// file. Processors are numbered from 1 in every format, as in the seed's files.
#include <algorithm>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "report/schedule_report.h"
#include "report/rows.h"

namespace grainscope {
namespace {

bool InNs(const TaskDag& g) { return g.time_unit == "ns"; }

// A time for people: a duration for graphs in ns, the bare number in the file's own unit.
std::string Time(const TaskDag& g, int64_t t) { return InNs(g) ? FormatDuration(t) : std::to_string(t); }

// Tasks of each processor in start order (ties: task index).
std::vector<std::vector<uint32_t>> TasksByProcessor(const Schedule& s) {
  std::vector<std::vector<uint32_t>> on(s.processors);
  for (uint32_t t = 0; t < s.slots.size(); ++t) on[s.slots[t].processor].push_back(t);
  for (auto& tasks : on) {
    std::stable_sort(tasks.begin(), tasks.end(),
                     [&](uint32_t a, uint32_t b) { return s.slots[a].start < s.slots[b].start; });
  }
  return on;
}

// The seed's Schedule file (MacSchedule 1.0, figure 4.5c), as `gantt --format seed` writes the
// actual one; times of a trace's graph in unit_ns, of a file's graph as they are.
std::string ScheduleSeed(const TaskDag& g, const Schedule& s, int64_t unit_ns) {
  auto time = [&](int64_t t) { return InNs(g) ? ToUnit(t, unit_ns) : t; };
  std::string out = "Schedule < Identifies this as a schedule file >\n";
  out += fmt::format("{} < Total Number of Tasks on All Processors >\n", g.size());
  out += fmt::format("{} 1.0 < Number of Processors, Transfer Rate >\n", s.processors);
  const auto on = TasksByProcessor(s);
  for (uint32_t p = 0; p < s.processors; ++p) {
    out += fmt::format("{} < Processor# >\n", p + 1);
    out += fmt::format("{} < Number of Tasks on this processor >\n", on[p].size());
    for (uint32_t t : on[p]) out += fmt::format("{} {} {} 0 0\n", g.Label(t), time(s.slots[t].start), time(s.slots[t].finish));
  }
  return out;
}

nlohmann::ordered_json SpeedupJson(const std::vector<SpeedupPoint>& speedup) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const SpeedupPoint& p : speedup) {
    a.push_back({{"processors", p.processors}, {"makespan", p.makespan}, {"speedup", p.speedup}, {"optimal", p.optimal}});
  }
  return a;
}

std::string ScheduleJson(const TaskDag& g, const Schedule& s, std::string_view requested,
                         const std::vector<SpeedupPoint>& speedup, const RenderOptions& o) {
  nlohmann::ordered_json j;
  j["heuristic"] = s.heuristic;
  j["requested"] = requested;
  j["processors"] = s.processors;
  j["time_unit"] = g.time_unit;
  j["makespan"] = s.makespan;
  j["optimal"] = s.optimal;
  j["lower_bound"] = s.lower_bound;
  j["work"] = g.total_weight();
  if (s.search_nodes > 0) j["search_nodes"] = s.search_nodes;
  j["task_count"] = g.size();
  j["edge_count"] = g.edge_count();
  nlohmann::ordered_json tasks = nlohmann::ordered_json::array();
  for (uint32_t t = 0; t < g.size(); ++t) {
    nlohmann::ordered_json tj;
    tj["id"] = g.id[t];
    if (!g.name[t].empty()) tj["name"] = g.name[t];
    tj["processor"] = s.slots[t].processor + 1;
    tj["start"] = s.slots[t].start;
    tj["finish"] = s.slots[t].finish;
    tasks.push_back(std::move(tj));
  }
  j["tasks"] = std::move(tasks);
  if (!speedup.empty()) j["speedup"] = SpeedupJson(speedup);
  return FinishJson(j, o.notes);
}

// One row per processor, up to kWidth columns over [0, makespan]; a column shows the task that covers
// most of it (its code letter), '.' when idle. Codes: A-Z, a-z, 0-9 by task index, '#' beyond.
constexpr int kWidth = 72;
constexpr std::string_view kCodes = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

char Code(uint32_t t) { return t < kCodes.size() ? kCodes[t] : '#'; }

std::string AsciiGantt(const TaskDag& g, const Schedule& s, size_t top) {
  if (s.makespan <= 0) return {};
  const auto on = TasksByProcessor(s);
  const int width = static_cast<int>(std::min<int64_t>(kWidth, s.makespan));  // >= 1 time unit per column
  const double per_column = static_cast<double>(s.makespan) / width;
  const std::string column = InNs(g) ? FormatDuration(static_cast<int64_t>(per_column + 0.5))
                                     : fmt::format("{:.3g} time unit{}", per_column, per_column == 1.0 ? "" : "s");
  std::string out = fmt::format("\n  Gantt chart (one column = {}):\n", column);
  const size_t rows = RowsShown(s.processors, top);
  for (uint32_t p = 0; p < rows; ++p) {
    std::string row(width, '.');
    std::vector<double> covered(width, 0.0);
    for (uint32_t t : on[p]) {
      const double a = s.slots[t].start / per_column, b = s.slots[t].finish / per_column;
      for (int c = std::max(0, static_cast<int>(a)); c < width && c < b; ++c) {
        const double part = std::min<double>(b, c + 1) - std::max<double>(a, c);
        if (part > covered[c]) {
          covered[c] = part;
          row[c] = Code(t);
        }
      }
    }
    out += fmt::format("  P{:<3} |{}|\n", p + 1, row);
  }
  out += RowsLeftOut(s.processors, rows);
  if (g.size() <= kCodes.size()) {
    std::string legend = "  tasks:";
    for (uint32_t t = 0; t < g.size(); ++t) {
      std::string item = fmt::format(" {}={}", Code(t), g.Label(t));
      if (legend.size() + item.size() > 100) {
        out += legend + "\n";
        legend = "        ";
      }
      legend += item;
    }
    out += legend + "\n";
  }
  return out;
}

std::string SpeedupText(const TaskDag& g, const std::vector<SpeedupPoint>& speedup) {
  std::string out = fmt::format("\n  Projected speedup (work {} / makespan):\n", Time(g, g.total_weight()));
  out += fmt::format("  {:>10} {:>14} {:>8}\n", "processors", "makespan", "speedup");
  for (const SpeedupPoint& p : speedup) {
    out += fmt::format("  {:>10} {:>14} {:>8.2f}{}\n", p.processors, Time(g, p.makespan), p.speedup,
                       p.optimal ? "  optimal" : "");
  }
  return out;
}

std::string ScheduleText(const TaskDag& g, const Machine& m, const Schedule& s, std::string_view requested,
                         const std::vector<SpeedupPoint>& speedup, const RenderOptions& o) {
  const bool speeds_given = !m.identical();
  std::string out = fmt::format("Projected schedule: {} ({} tasks, {} edges) on {} processor{}\n", o.source, g.size(),
                                g.edge_count(), s.processors, s.processors == 1 ? "" : "s");
  std::string chosen = s.heuristic;
  if (requested == "best") chosen += " (the best of hlfet, etf, mcp, heft, dsc, then a bounded exact search)";
  out += fmt::format("  heuristic   {}\n", chosen);
  const std::string machine = speeds_given ? fmt::format("{} processors of speeds {}", s.processors, fmt::join(m.speeds, ", "))
                                            : fmt::format("{} identical processors", s.processors);
  out += fmt::format("  model       {}; task times and edge costs as given; an edge's cost is paid only\n"
                     "              between processors and overlaps computation\n",
                     machine);
  out += fmt::format("  makespan    {}\n", Time(g, s.makespan));
  out += fmt::format("  lower bound {} (no schedule in this model is shorter: the longest path without\n"
                     "              communication, the work over the processors{})\n",
                     Time(g, s.lower_bound), s.search_nodes > 0 ? ", the exact search's bounds" : "");
  std::string optimal = "not proven";
  if (s.optimal) {
    optimal = s.makespan <= s.lower_bound ? "yes, proven for this model (makespan = lower bound)"
                                          : "yes, proven for this model (the exact search ruled out every shorter schedule)";
  }
  out += fmt::format("  optimal     {}\n", optimal);
  const double speedup_now = s.makespan > 0 ? static_cast<double>(g.total_weight()) / s.makespan : 1.0;
  out += fmt::format("  speedup     {:.2f} (work {} / makespan)\n", speedup_now, Time(g, g.total_weight()));
  out += fmt::format("\n  {:>10} {:>10} {:>14} {:>14}\n", "task", "processor", "start", "finish");
  const auto on = TasksByProcessor(s);
  const size_t tasks_shown = RowsShown(g.size(), o.top);
  size_t row = 0;
  for (uint32_t p = 0; p < s.processors && row < tasks_shown; ++p) {
    for (uint32_t t : on[p]) {
      if (row == tasks_shown) break;
      ++row;
      out += fmt::format("  {:>10} {:>10} {:>14} {:>14}\n", g.Label(t), p + 1, Time(g, s.slots[t].start),
                         Time(g, s.slots[t].finish));
    }
  }
  out += RowsLeftOut(g.size(), tasks_shown);
  out += AsciiGantt(g, s, o.top);
  if (!speedup.empty()) out += SpeedupText(g, speedup);
  return out;
}

}  // namespace

Result<std::string> RenderSchedule(const TaskDag& g, const Machine& m, const Schedule& s, std::string_view requested,
                                   const std::vector<SpeedupPoint>& speedup, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return ScheduleText(g, m, s, requested, speedup, o);
    case OutputFormat::kJson: return ScheduleJson(g, s, requested, speedup, o);
    case OutputFormat::kSeed: return ScheduleSeed(g, s, o.unit_ns);
    default:
      return InvalidArgument(fmt::format("schedule has no {} output (use text, json or seed)", OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
