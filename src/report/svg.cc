#include "report/svg.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "report/units.h"

namespace grainscope {

std::string EscapeMarkup(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

std::string Header(int width, int height, const std::string& title) {
  return fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"11\">\n<title>{2}</title>\n"
      "<rect width=\"{0}\" height=\"{1}\" fill=\"white\"/>\n",
      width, height, EscapeMarkup(title));
}

// Seconds, milliseconds or microseconds, whichever keeps tick labels short.
std::string TickLabel(double ns, double max_ns) {
  if (max_ns >= 1e9) return fmt::format("{:g} s", ns / 1e9);
  if (max_ns >= 1e6) return fmt::format("{:g} ms", ns / 1e6);
  if (max_ns >= 1e3) return fmt::format("{:g} us", ns / 1e3);
  return fmt::format("{:g} ns", ns);
}

}  // namespace

std::string LengthColor(double t, double lo, double hi) {
  // The same five stops as report.js's LENGTH_STOPS.
  static constexpr std::array<std::array<int, 3>, 5> kStops{
      {{198, 219, 239}, {107, 174, 214}, {253, 208, 162}, {253, 141, 60}, {165, 15, 21}}};
  const double a = std::log(std::max(lo, 1.0)), b = std::log(std::max(hi, 1.0)), x = std::log(std::max(t, 1.0));
  const double f = b > a ? std::clamp((x - a) / (b - a), 0.0, 1.0) : 1.0;
  const double pos = f * (kStops.size() - 1);
  const size_t i = std::min<size_t>(kStops.size() - 2, static_cast<size_t>(pos));
  const double w = pos - static_cast<double>(i);
  int rgb[3];
  for (int k = 0; k < 3; ++k) rgb[k] = static_cast<int>(std::lround(kStops[i][k] * (1 - w) + kStops[i + 1][k] * w));
  return fmt::format("#{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]);
}

std::vector<double> NiceTicks(double max) {
  if (!(max > 0)) return {0};
  const double raw = max / 8;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  double step = p;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * p;
    if (step >= raw) break;
  }
  std::vector<double> ticks;
  for (int i = 0; i * step <= max * (1 + 1e-9); ++i) ticks.push_back(i * step);
  return ticks;
}

namespace {

// The Gantt chart's layout (pixels) and scales: time from the origin to `end` across the plot,
// grain lengths from `lo` to `hi` across the colours.
struct GanttFrame {
  static constexpr int kLabel = 130, kPlot = 820, kLane = 22, kTop = 30, kAxis = 36;
  const Trace& t;
  TimeNs end = 1;
  bool any_blocked = false;
  double lo = 0, hi = 0;
  double x(TimeNs ns) const { return kLabel + kPlot * static_cast<double>(ns) / static_cast<double>(end); }
};

const std::vector<BlockedSpan>& BlockedOf(const std::vector<std::vector<BlockedSpan>>& blocked,
                                          const GanttLane& lane) {
  static const std::vector<BlockedSpan> kNone;
  return lane.location.value < blocked.size() ? blocked[lane.location.value] : kNone;
}

// The time axis ends at the last grain or blocked period; the colours span the grains' lengths.
GanttFrame MeasureGantt(const Trace& t, const std::vector<GanttLane>& lanes,
                        const std::vector<std::vector<BlockedSpan>>& blocked) {
  GanttFrame f{t};
  for (const GanttLane& lane : lanes) {
    for (const BlockedSpan& b : BlockedOf(blocked, lane)) {
      f.end = std::max(f.end, b.stop - t.origin_ns());
      f.any_blocked = true;
    }
  }
  for (const GanttLane& lane : lanes) {
    for (const GrainInstance& g : lane.tasks) {
      f.end = std::max(f.end, g.stop - t.origin_ns());
      const double d = static_cast<double>(g.duration());
      f.lo = f.lo == 0 ? d : std::min(f.lo, d);
      f.hi = std::max(f.hi, d);
    }
  }
  return f;
}

// The hatching of blocked periods and its legend, top right.
void AppendBlockedLegend(std::string& out) {
  constexpr int kRight = GanttFrame::kLabel + GanttFrame::kPlot;
  out += "<defs><pattern id=\"blocked\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
         "patternTransform=\"rotate(45)\"><rect width=\"4\" height=\"4\" fill=\"#bbb\"/>"
         "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"4\" stroke=\"#444\" stroke-width=\"1.5\"/></pattern></defs>\n";
  out += fmt::format("<rect x=\"{}\" y=\"8\" width=\"14\" height=\"12\" fill=\"url(#blocked)\"/>"
                     "<text x=\"{}\" y=\"18\">blocked (lock, condition, join, barrier, MPI wait)</text>\n",
                     kRight - 300, kRight - 282);
}

// One lane at height `y`: its label and baseline, its grains coloured by length, and its blocked
// periods hatched over them.
void AppendLane(std::string& out, const GanttFrame& f, const GanttLane& lane, const std::vector<BlockedSpan>& blocked,
                int y) {
  using F = GanttFrame;
  const Trace& t = f.t;
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", F::kLabel - 6, y + F::kLane / 2 + 4,
                     EscapeMarkup(t.str(t.location(lane.location).name)));
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#ddd\"/>\n", F::kLabel, y + F::kLane,
                     F::kLabel + F::kPlot, y + F::kLane);
  for (const GrainInstance& g : lane.tasks) {
    const double x0 = f.x(g.start - t.origin_ns()), x1 = f.x(g.stop - t.origin_ns());
    out += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\" stroke=\"#333\" stroke-width=\"0.3\">"
        "<title>{} {} .. {} ({})</title></rect>\n",
        x0, y + 3, std::max(0.5, x1 - x0), F::kLane - 6, LengthColor(static_cast<double>(g.duration()), f.lo, f.hi),
        EscapeMarkup(t.str(t.region(g.region).name)), FormatDuration(g.start - t.origin_ns()),
        FormatDuration(g.stop - t.origin_ns()), FormatDuration(g.duration()));
  }
  for (const BlockedSpan& b : blocked) {
    const double x0 = f.x(b.start - t.origin_ns()), x1 = f.x(b.stop - t.origin_ns());
    out += fmt::format(
        "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"url(#blocked)\">"
        "<title>blocked in {} {} .. {} ({})</title></rect>\n",
        x0, y + 6, std::max(0.5, x1 - x0), F::kLane - 12, EscapeMarkup(BlockedSpanCause(t, b)),
        FormatDuration(b.start - t.origin_ns()), FormatDuration(b.stop - t.origin_ns()),
        FormatDuration(b.stop - b.start));
  }
}

// The time axis under the lanes, at height `axis_y`, with round ticks.
void AppendTimeAxis(std::string& out, const GanttFrame& f, int axis_y) {
  using F = GanttFrame;
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", F::kLabel, axis_y,
                     F::kLabel + F::kPlot, axis_y);
  for (double tick : NiceTicks(static_cast<double>(f.end))) {
    const double tx = f.x(static_cast<TimeNs>(tick));
    out += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"black\"/>"
                       "<text x=\"{0:.2f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                       tx, axis_y, axis_y + 4, axis_y + 16, TickLabel(tick, static_cast<double>(f.end)));
  }
}

}  // namespace

std::string GanttSvg(const Trace& t, const std::vector<GanttLane>& lanes,
                     const std::vector<std::vector<BlockedSpan>>& blocked, const std::string& title) {
  using F = GanttFrame;
  const GanttFrame f = MeasureGantt(t, lanes, blocked);
  const int height = F::kTop + F::kLane * static_cast<int>(lanes.size()) + F::kAxis;
  std::string out = Header(F::kLabel + F::kPlot + 20, height, title);
  out += fmt::format("<text x=\"{}\" y=\"18\" font-size=\"13\">{}</text>\n", F::kLabel, EscapeMarkup(title));
  if (f.any_blocked) AppendBlockedLegend(out);
  for (size_t i = 0; i < lanes.size(); ++i)
    AppendLane(out, f, lanes[i], BlockedOf(blocked, lanes[i]), F::kTop + F::kLane * static_cast<int>(i));
  AppendTimeAxis(out, f, F::kTop + F::kLane * static_cast<int>(lanes.size()));
  out += "</svg>\n";
  return out;
}

namespace {

// The speedup chart's layout (pixels) and scales: processors 1 .. max_p across the square plot,
// speedup 0 .. ymax up it.
struct SpeedupFrame {
  static constexpr int kLeft = 60, kPlot = 420, kTop = 34, kBottom = 44, kRight = 180;
  uint32_t max_p = 1;
  double ymax = 1;
  double x(double procs) const { return kLeft + kPlot * (max_p > 1 ? (procs - 1) / (max_p - 1) : 0.5); }
  double y(double s) const { return kTop + kPlot * (1 - s / ymax); }
};

// A run's speedup: the work over the run's corrected time (the time the projection models).
double RunSpeedup(const Prediction& p, const RunComparison& c) {
  return c.corrected_ns > 0 ? static_cast<double>(p.work_ns) / static_cast<double>(c.corrected_ns) : 0.0;
}

// The frame holds every projected point and run, and the ideal line up to the largest processor
// count the speedups reach; `yt` gets the speedup ticks (the last is the top of the plot).
SpeedupFrame MeasureSpeedup(const Prediction& p, const std::vector<RunComparison>& runs, std::vector<double>& yt) {
  SpeedupFrame f;
  double max_s = 1;
  for (const SpeedupPoint& s : p.curve) {
    f.max_p = std::max(f.max_p, s.processors);
    max_s = std::max(max_s, s.speedup);
  }
  for (const RunComparison& c : runs) {
    f.max_p = std::max(f.max_p, c.processors);
    max_s = std::max(max_s, RunSpeedup(p, c));
  }
  max_s = std::max(max_s, static_cast<double>(std::min<uint32_t>(f.max_p, static_cast<uint32_t>(std::ceil(max_s)))));
  yt = NiceTicks(max_s * 1.05);
  f.ymax = yt.back() > 0 ? yt.back() : 1;
  return f;
}

// The plot's box, the speedup grid and the processor ticks (1, then round steps, never
// fractional), with the axes' names.
void AppendSpeedupAxes(std::string& out, const SpeedupFrame& f, const std::vector<double>& yt) {
  using F = SpeedupFrame;
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", F::kLeft,
                     F::kTop, F::kPlot, F::kPlot);
  for (double s : yt) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1:.2f}\" x2=\"{2}\" y2=\"{1:.2f}\" stroke=\"#eee\"/>"
                       "<text x=\"{3}\" y=\"{4:.2f}\" text-anchor=\"end\">{5:g}</text>\n",
                       F::kLeft, f.y(s), F::kLeft + F::kPlot, F::kLeft - 5, f.y(s) + 4, s);
  }
  const std::vector<double> xt = NiceTicks(f.max_p);
  const double step = std::max(1.0, xt.size() > 1 ? xt[1] : 1.0);
  std::vector<uint32_t> procs_ticks{1};
  for (double v = step; v <= f.max_p; v += step)
    if (v > 1) procs_ticks.push_back(static_cast<uint32_t>(v));
  for (uint32_t procs : procs_ticks) {
    out += fmt::format("<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", f.x(procs),
                       F::kTop + F::kPlot + 16, procs);
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">processors</text>\n", F::kLeft + F::kPlot / 2,
                     F::kTop + F::kPlot + 34);
  out += fmt::format("<text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">speedup</text>\n",
                     F::kTop + F::kPlot / 2);
}

// The ideal line (speedup = processors, clipped to the plot), the projected curve with a point per
// processor count, and a square per measured run.
void AppendSpeedupData(std::string& out, const SpeedupFrame& f, const Prediction& p,
                       const std::vector<RunComparison>& runs) {
  const double ideal_end = std::min<double>(f.max_p, f.ymax);
  out += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"#999\" "
                     "stroke-dasharray=\"4 3\"/>\n",
                     f.x(1), f.y(1), f.x(ideal_end), f.y(ideal_end));
  std::string points;
  for (const SpeedupPoint& s : p.curve) points += fmt::format("{:.2f},{:.2f} ", f.x(s.processors), f.y(s.speedup));
  if (!points.empty()) points.pop_back();
  out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n", points);
  for (const SpeedupPoint& s : p.curve) {
    out += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"3\" fill=\"#1f77b4\"><title>{} processors: "
                       "projected {} (speedup {:.2f})</title></circle>\n",
                       f.x(s.processors), f.y(s.speedup), s.processors, FormatDuration(s.makespan), s.speedup);
  }
  for (const RunComparison& c : runs) {
    const double s = RunSpeedup(p, c);
    out += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"8\" height=\"8\" fill=\"#d62728\"><title>{}: {} "
                       "processors, corrected time {} (speedup {:.2f})</title></rect>\n",
                       f.x(c.processors) - 4, f.y(s) - 4, EscapeMarkup(c.file), c.processors,
                       FormatDuration(c.corrected_ns), s);
  }
}

// The legend right of the plot: projected (with its heuristic), measured runs, ideal.
void AppendSpeedupLegend(std::string& out, const std::string& heuristic) {
  using F = SpeedupFrame;
  const int lx = F::kLeft + F::kPlot + 14;
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#1f77b4\" stroke-width=\"2\"/>"
                     "<text x=\"{3}\" y=\"{4}\">projected ({5})</text>\n",
                     lx, F::kTop + 10, lx + 20, lx + 26, F::kTop + 14, EscapeMarkup(heuristic));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" fill=\"#d62728\"/>"
                     "<text x=\"{}\" y=\"{}\">measured runs</text>\n",
                     lx + 6, F::kTop + 26, lx + 26, F::kTop + 34);
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>"
                     "<text x=\"{3}\" y=\"{4}\">ideal</text>\n",
                     lx, F::kTop + 50, lx + 20, lx + 26, F::kTop + 54);
}

}  // namespace

std::string SpeedupSvg(const Prediction& p, const std::string& title) {
  using F = SpeedupFrame;
  std::vector<RunComparison> runs{p.measured};
  runs.insert(runs.end(), p.actual.begin(), p.actual.end());
  std::vector<double> yt;
  const SpeedupFrame f = MeasureSpeedup(p, runs, yt);
  std::string out = Header(F::kLeft + F::kPlot + F::kRight, F::kTop + F::kPlot + F::kBottom, title);
  out += fmt::format("<text x=\"{}\" y=\"20\" font-size=\"13\">{}</text>\n", F::kLeft, EscapeMarkup(title));
  AppendSpeedupAxes(out, f, yt);
  AppendSpeedupData(out, f, p, runs);
  AppendSpeedupLegend(out, p.heuristic);
  out += "</svg>\n";
  return out;
}

}  // namespace grainscope
