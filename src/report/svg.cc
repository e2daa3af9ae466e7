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

std::string GanttSvg(const Trace& t, const std::vector<GanttLane>& lanes,
                     const std::vector<std::vector<BlockedSpan>>& blocked, const std::string& title) {
  constexpr int kLabel = 130, kPlot = 820, kLane = 22, kTop = 30, kAxis = 36;
  static const std::vector<BlockedSpan> kNone;
  const auto blocked_of = [&](const GanttLane& lane) -> const std::vector<BlockedSpan>& {
    return lane.location.value < blocked.size() ? blocked[lane.location.value] : kNone;
  };
  TimeNs end = 1;
  bool any_blocked = false;
  for (const GanttLane& lane : lanes) {
    for (const BlockedSpan& b : blocked_of(lane)) {
      end = std::max(end, b.stop - t.origin_ns());
      any_blocked = true;
    }
  }
  double lo = 0, hi = 0;
  for (const GanttLane& lane : lanes) {
    for (const GrainInstance& g : lane.tasks) {
      end = std::max(end, g.stop - t.origin_ns());
      const double d = static_cast<double>(g.duration());
      lo = lo == 0 ? d : std::min(lo, d);
      hi = std::max(hi, d);
    }
  }
  const int height = kTop + kLane * static_cast<int>(lanes.size()) + kAxis;
  const auto x = [&](TimeNs ns) { return kLabel + kPlot * static_cast<double>(ns) / static_cast<double>(end); };
  std::string out = Header(kLabel + kPlot + 20, height, title);
  out += fmt::format("<text x=\"{}\" y=\"18\" font-size=\"13\">{}</text>\n", kLabel, EscapeMarkup(title));
  if (any_blocked) {
    out += "<defs><pattern id=\"blocked\" width=\"4\" height=\"4\" patternUnits=\"userSpaceOnUse\" "
           "patternTransform=\"rotate(45)\"><rect width=\"4\" height=\"4\" fill=\"#bbb\"/>"
           "<line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"4\" stroke=\"#444\" stroke-width=\"1.5\"/></pattern></defs>\n";
    out += fmt::format("<rect x=\"{}\" y=\"8\" width=\"14\" height=\"12\" fill=\"url(#blocked)\"/>"
                       "<text x=\"{}\" y=\"18\">blocked (lock, condition, join, barrier, MPI wait)</text>\n",
                       kLabel + kPlot - 300, kLabel + kPlot - 282);
  }
  for (size_t i = 0; i < lanes.size(); ++i) {
    const int y = kTop + kLane * static_cast<int>(i);
    out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n", kLabel - 6, y + kLane / 2 + 4,
                       EscapeMarkup(t.str(t.location(lanes[i].location).name)));
    out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"#ddd\"/>\n", kLabel, y + kLane,
                       kLabel + kPlot, y + kLane);
    for (const GrainInstance& g : lanes[i].tasks) {
      const double x0 = x(g.start - t.origin_ns()), x1 = x(g.stop - t.origin_ns());
      out += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\" stroke=\"#333\" stroke-width=\"0.3\">"
          "<title>{} {} .. {} ({})</title></rect>\n",
          x0, y + 3, std::max(0.5, x1 - x0), kLane - 6, LengthColor(static_cast<double>(g.duration()), lo, hi),
          EscapeMarkup(t.str(t.region(g.region).name)), FormatDuration(g.start - t.origin_ns()),
          FormatDuration(g.stop - t.origin_ns()), FormatDuration(g.duration()));
    }
    for (const BlockedSpan& b : blocked_of(lanes[i])) {
      const double x0 = x(b.start - t.origin_ns()), x1 = x(b.stop - t.origin_ns());
      out += fmt::format(
          "<rect x=\"{:.2f}\" y=\"{}\" width=\"{:.2f}\" height=\"{}\" fill=\"url(#blocked)\">"
          "<title>blocked in {} {} .. {} ({})</title></rect>\n",
          x0, y + 6, std::max(0.5, x1 - x0), kLane - 12, EscapeMarkup(BlockedSpanCause(t, b)),
          FormatDuration(b.start - t.origin_ns()), FormatDuration(b.stop - t.origin_ns()),
          FormatDuration(b.stop - b.start));
    }
  }
  const int axis_y = kTop + kLane * static_cast<int>(lanes.size());
  out += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n", kLabel, axis_y,
                     kLabel + kPlot, axis_y);
  for (double tick : NiceTicks(static_cast<double>(end))) {
    const double tx = x(static_cast<TimeNs>(tick));
    out += fmt::format("<line x1=\"{0:.2f}\" y1=\"{1}\" x2=\"{0:.2f}\" y2=\"{2}\" stroke=\"black\"/>"
                       "<text x=\"{0:.2f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                       tx, axis_y, axis_y + 4, axis_y + 16, TickLabel(tick, static_cast<double>(end)));
  }
  out += "</svg>\n";
  return out;
}

std::string SpeedupSvg(const Prediction& p, const std::string& title) {
  constexpr int kLeft = 60, kPlot = 420, kTop = 34, kBottom = 44, kRight = 180;
  uint32_t max_p = 1;
  double max_s = 1;
  for (const SpeedupPoint& s : p.curve) {
    max_p = std::max(max_p, s.processors);
    max_s = std::max(max_s, s.speedup);
  }
  std::vector<RunComparison> runs{p.measured};
  runs.insert(runs.end(), p.actual.begin(), p.actual.end());
  const auto run_speedup = [&](const RunComparison& c) {
    return c.corrected_ns > 0 ? static_cast<double>(p.work_ns) / static_cast<double>(c.corrected_ns) : 0.0;
  };
  for (const RunComparison& c : runs) {
    max_p = std::max(max_p, c.processors);
    max_s = std::max(max_s, run_speedup(c));
  }
  max_s = std::max(max_s, static_cast<double>(std::min<uint32_t>(max_p, static_cast<uint32_t>(std::ceil(max_s)))));
  const std::vector<double> yt = NiceTicks(max_s * 1.05);
  const double ymax = yt.back() > 0 ? yt.back() : 1;
  const auto x = [&](double procs) { return kLeft + kPlot * (max_p > 1 ? (procs - 1) / (max_p - 1) : 0.5); };
  const auto y = [&](double s) { return kTop + kPlot * (1 - s / ymax); };
  std::string out = Header(kLeft + kPlot + kRight, kTop + kPlot + kBottom, title);
  out += fmt::format("<text x=\"{}\" y=\"20\" font-size=\"13\">{}</text>\n", kLeft, EscapeMarkup(title));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", kLeft,
                     kTop, kPlot, kPlot);
  for (double s : yt) {
    out += fmt::format("<line x1=\"{0}\" y1=\"{1:.2f}\" x2=\"{2}\" y2=\"{1:.2f}\" stroke=\"#eee\"/>"
                       "<text x=\"{3}\" y=\"{4:.2f}\" text-anchor=\"end\">{5:g}</text>\n",
                       kLeft, y(s), kLeft + kPlot, kLeft - 5, y(s) + 4, s);
  }
  // Processor ticks: 1, then round steps (never fractional).
  const std::vector<double> xt = NiceTicks(max_p);
  const double step = std::max(1.0, xt.size() > 1 ? xt[1] : 1.0);
  std::vector<uint32_t> procs_ticks{1};
  for (double v = step; v <= max_p; v += step)
    if (v > 1) procs_ticks.push_back(static_cast<uint32_t>(v));
  for (uint32_t procs : procs_ticks) {
    out += fmt::format("<text x=\"{:.2f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x(procs), kTop + kPlot + 16,
                       procs);
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">processors</text>\n", kLeft + kPlot / 2,
                     kTop + kPlot + 34);
  out += fmt::format("<text transform=\"translate(16 {}) rotate(-90)\" text-anchor=\"middle\">speedup</text>\n",
                     kTop + kPlot / 2);
  // Ideal: speedup = processors, clipped to the plot.
  const double ideal_end = std::min<double>(max_p, ymax);
  out += fmt::format("<line x1=\"{:.2f}\" y1=\"{:.2f}\" x2=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"#999\" "
                     "stroke-dasharray=\"4 3\"/>\n",
                     x(1), y(1), x(ideal_end), y(ideal_end));
  std::string points;
  for (const SpeedupPoint& s : p.curve) points += fmt::format("{:.2f},{:.2f} ", x(s.processors), y(s.speedup));
  if (!points.empty()) points.pop_back();
  out += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\"/>\n", points);
  for (const SpeedupPoint& s : p.curve) {
    out += fmt::format("<circle cx=\"{:.2f}\" cy=\"{:.2f}\" r=\"3\" fill=\"#1f77b4\"><title>{} processors: "
                       "projected {} (speedup {:.2f})</title></circle>\n",
                       x(s.processors), y(s.speedup), s.processors, FormatDuration(s.makespan), s.speedup);
  }
  for (const RunComparison& c : runs) {
    const double s = run_speedup(c);
    out += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"8\" height=\"8\" fill=\"#d62728\"><title>{}: {} "
                       "processors, corrected time {} (speedup {:.2f})</title></rect>\n",
                       x(c.processors) - 4, y(s) - 4, EscapeMarkup(c.file), c.processors, FormatDuration(c.corrected_ns), s);
  }
  const int lx = kLeft + kPlot + 14;
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#1f77b4\" stroke-width=\"2\"/>"
                     "<text x=\"{3}\" y=\"{4}\">projected ({5})</text>\n",
                     lx, kTop + 10, lx + 20, lx + 26, kTop + 14, EscapeMarkup(p.heuristic));
  out += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"8\" height=\"8\" fill=\"#d62728\"/>"
                     "<text x=\"{}\" y=\"{}\">measured runs</text>\n",
                     lx + 6, kTop + 26, lx + 26, kTop + 34);
  out += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>"
                     "<text x=\"{3}\" y=\"{4}\">ideal</text>\n",
                     lx, kTop + 50, lx + 20, lx + 26, kTop + 54);
  out += "</svg>\n";
  return out;
}

}  // namespace grainscope
