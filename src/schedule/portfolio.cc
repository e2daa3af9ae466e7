#include "schedule/portfolio.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

#include "base/numbers.h"
#include "base/progress.h"

namespace grainscope {

namespace {
constexpr std::array<std::string_view, 7> kNames = {"hlfet", "etf", "mcp", "heft", "dsc", "exact", "best"};
}  // namespace

std::string_view HeuristicName(Heuristic h) { return kNames[static_cast<size_t>(h)]; }

std::optional<Heuristic> ParseHeuristic(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<Heuristic>(i);
  return std::nullopt;
}

Schedule BestHeuristicSchedule(const TaskDag& g, const Machine& m) {
  Schedule best = ScheduleHlfet(g, m);
  for (Schedule (*run)(const TaskDag&, const Machine&) : {ScheduleEtf, ScheduleMcp, ScheduleHeft, ScheduleDsc}) {
    Schedule s = run(g, m);
    if (s.makespan < best.makespan) best = std::move(s);
  }
  return best;
}

Result<Schedule> RunHeuristic(const TaskDag& g, const Machine& m, Heuristic h, const PortfolioOptions& o) {
  GS_RETURN_IF_ERROR(CheckMachine(m));
  switch (h) {
    case Heuristic::kHlfet: return ScheduleHlfet(g, m);
    case Heuristic::kEtf: return ScheduleEtf(g, m);
    case Heuristic::kMcp: return ScheduleMcp(g, m);
    case Heuristic::kHeft: return ScheduleHeft(g, m);
    case Heuristic::kDsc: return ScheduleDsc(g, m);
    case Heuristic::kExact: {
      ExactOptions e = o.exact;
      if (!e.initial) e.initial = BestHeuristicSchedule(g, m);
      return ScheduleExact(g, m, e);
    }
    case Heuristic::kBest: {
      Schedule best = BestHeuristicSchedule(g, m);
      if (best.optimal || !m.identical() || g.size() > o.best_exact_max_tasks) return best;
      ExactOptions e;
      e.node_limit = o.best_node_limit;
      e.initial = best;
      GS_ASSIGN_OR_RETURN(Schedule exact, ScheduleExact(g, m, e));
      if (exact.makespan < best.makespan) return exact;
      best.optimal = exact.optimal;
      best.lower_bound = std::max(best.lower_bound, exact.lower_bound);
      best.search_nodes = exact.search_nodes;
      return best;
    }
  }
  return Internal("unknown heuristic");
}

std::optional<std::pair<uint32_t, uint32_t>> ParseProcessorRange(std::string_view text) {
  auto count = [](std::string_view s) -> std::optional<uint32_t> {
    std::optional<int64_t> v = ParseNonNegativeInt(s);
    if (!v || *v < 1 || *v > kMaxProcessors) return std::nullopt;
    return static_cast<uint32_t>(*v);
  };
  const size_t dots = text.find("..");
  if (dots == std::string_view::npos) {
    std::optional<uint32_t> n = count(text);
    if (!n) return std::nullopt;
    return std::make_pair(1u, *n);
  }
  std::optional<uint32_t> a = count(text.substr(0, dots)), b = count(text.substr(dots + 2));
  if (!a || !b || *a > *b) return std::nullopt;
  return std::make_pair(*a, *b);
}

Result<std::vector<SpeedupPoint>> SpeedupCurve(const TaskDag& g, Heuristic h, uint32_t from, uint32_t to,
                                               const PortfolioOptions& o) {
  if (from == 0 || from > to) return InvalidArgument(fmt::format("bad processor range {}..{}", from, to));
  std::vector<SpeedupPoint> curve;
  curve.reserve(to - from + 1);
  const int64_t sequential = g.total_weight();
  // With at least as many processors as tasks every task can have one to itself, and the
  // processors are identical: a schedule on more is the same schedule (each heuristic's choices
  // among unused processors are the same; the lower bound is the critical path). So the counts
  // past max(from, tasks) repeat that point instead of scheduling again (predict -p 1..100000
  // of a 256-task graph: 256 schedules, not 100,000).
  const uint32_t enough = std::max<uint32_t>(from, static_cast<uint32_t>(std::min<size_t>(g.size(), to)));
  progress::Begin("scheduling", static_cast<uint64_t>(std::max(enough, from) - from + 1));
  for (uint32_t p = from; p <= to; ++p) {
    if (p > enough && !curve.empty()) {
      SpeedupPoint same = curve.back();
      same.processors = p;
      curve.push_back(same);
      continue;
    }
    Machine m;
    m.processors = p;
    GS_ASSIGN_OR_RETURN(Schedule s, RunHeuristic(g, m, h, o));
    const double speedup = s.makespan > 0 ? static_cast<double>(sequential) / static_cast<double>(s.makespan) : 1.0;
    curve.push_back(SpeedupPoint{p, s.makespan, speedup, s.optimal, s.lower_bound});
    progress::Advance(p - from + 1);
  }
  return curve;
}

}  // namespace grainscope
