#include <algorithm>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/location_column.h"
#include "report/waits_report.h"
#include "report/rows.h"

namespace grainscope {
namespace {

std::string_view RegionName(const Trace& t, RegionId r) {
  return r.valid() ? t.str(t.region(r).name) : std::string_view("(outside regions)");
}

// The largest wait instances, largest first (ties: earlier first).
std::vector<const WaitInstance*> Largest(const WaitStates& w, size_t n) {
  std::vector<const WaitInstance*> all;
  for (const WaitInstance& i : w.instances) all.push_back(&i);
  // Ties in instance order (what a stable sort gives), without sorting a million waits for 20.
  const size_t keep = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<long>(keep), all.end(),
                    [](const WaitInstance* a, const WaitInstance* b) {
                      return a->wait_ns != b->wait_ns ? a->wait_ns > b->wait_ns : a < b;
                    });
  all.resize(keep);
  return all;
}

TimeNs TotalDelay(const Characterization& c) {
  TimeNs total = 0;
  for (const RegionDelay& d : c.root_causes) total += d.delay_ns;
  return total;
}

std::string WaitsJson(const Trace& t, const WaitStates& w, const Characterization& c, const RenderOptions& o) {
  using json = nlohmann::ordered_json;
  json j;
  j["total_wait_ns"] = w.total_ns;
  j["eager_limit_bytes"] = w.eager_limit_bytes;
  j["eager_limit_source"] = w.eager_limit_source;
  json kinds = json::array();
  for (int k = 0; k < kWaitKindCount; ++k)
    kinds.push_back({{"kind", WaitKindName(static_cast<WaitKind>(k))}, {"count", w.count[k]}, {"time_ns", w.time_ns[k]}});
  j["kinds"] = std::move(kinds);
  json points = json::array();
  for (const SyncPointClasses& sp : c.sync_points) {
    json classes = json::array();
    for (const WaitClass& wc : sp.classes) {
      json steps = json::array();
      for (size_t s = 0; s < wc.steps.size(); ++s) {
        steps.push_back({{"region", RegionName(t, wc.steps[s].region)},
                         {"state", StepStateName(wc.steps[s].state)},
                         {"share", wc.shares[s]},
                         {"time_ns", wc.steps[s].ns}});
      }
      classes.push_back({{"count", wc.count}, {"wait_ns", wc.wait_ns}, {"steps", std::move(steps)}});
    }
    points.push_back({{"id", sp.sync_point},
                      {"label", w.sync_points[sp.sync_point].label},
                      {"wait_ns", sp.wait_ns},
                      {"count", sp.count},
                      {"classes", std::move(classes)}});
  }
  j["sync_points"] = std::move(points);
  json locs = json::array();
  for (uint32_t l = 0; l < w.by_location.size(); ++l)
    locs.push_back({{"location", LocationName(t, LocationId(l))}, {"wait_ns", w.by_location[l]}});
  j["locations"] = std::move(locs);
  json regions = json::array();
  for (uint32_t r = 0; r < w.by_region.size(); ++r) {
    if (w.by_region[r] == 0) continue;
    regions.push_back({{"region", RegionName(t, r + 1 == w.by_region.size() ? RegionId() : RegionId(r))},
                       {"wait_ns", w.by_region[r]}});
  }
  j["regions"] = std::move(regions);
  json largest = json::array();
  for (const WaitInstance* i : Largest(w, 20)) {
    largest.push_back({{"kind", WaitKindName(i->kind)},
                       {"waiter", LocationName(t, i->waiter)},
                       {"late", LocationName(t, i->late)},
                       {"start_ns", i->start_ns - t.origin_ns()},
                       {"wait_ns", i->wait_ns},
                       {"sync_point", i->sync_point}});
  }
  j["largest"] = std::move(largest);
  const TimeNs delay = TotalDelay(c);
  json causes = json::array();
  for (const RegionDelay& d : c.root_causes) {
    causes.push_back({{"region", RegionName(t, d.region)},
                      {"delay_ns", d.delay_ns},
                      {"fraction", delay > 0 ? static_cast<double>(d.delay_ns) / delay : 0.0}});
  }
  j["root_causes"] = std::move(causes);
  return FinishJson(j, o.notes);
}

std::string WaitsCsv(const Trace& t, const WaitStates& w) {
  std::string out = "kind,waiter,late,start_ns,wait_ns,sync_point\n";
  for (const WaitInstance& i : w.instances) {
    out += fmt::format("{},{},{},{},{},{}\n", WaitKindName(i.kind), CsvField(LocationName(t, i.waiter)),
                       CsvField(LocationName(t, i.late)), i.start_ns - t.origin_ns(), i.wait_ns,
                       CsvField(w.sync_points[i.sync_point].label));
  }
  return out;
}

std::string WaitsText(const Trace& t, const WaitStates& w, const Characterization& c, const RenderOptions& o) {
  std::string out = fmt::format("Wait states: {}\n  total waiting time {} in {} waits\n", o.source,
                                FormatDuration(w.total_ns), w.instances.size());
  if (t.messages().size() > 0) {
    out += fmt::format("  eager limit {} B ({}): larger sends wait for their receive (late receiver)\n",
                       w.eager_limit_bytes, w.eager_limit_source);
  }
  out += "\n";
  out += fmt::format("  {:<20} {:>8} {:>14}\n", "kind", "count", "time");
  for (int k = 0; k < kWaitKindCount; ++k) {
    if (w.count[k] == 0) continue;
    out += fmt::format("  {:<20} {:>8} {:>14}\n", WaitKindName(static_cast<WaitKind>(k)), w.count[k],
                       FormatDuration(w.time_ns[k]));
  }
  const size_t lw = LocationColumnWidth(t, 20);
  out += fmt::format("\n  {:<{}} {:>14}\n", "location", lw, "waiting");
  const size_t locations_shown = RowsShown(w.by_location.size(), o.top);
  for (uint32_t l = 0; l < locations_shown; ++l)
    out += fmt::format("  {:<{}} {:>14}\n", LocationName(t, LocationId(l)), lw, FormatDuration(w.by_location[l]));
  out += RowsLeftOut(w.by_location.size(), locations_shown);

  constexpr size_t kMaxClasses = 5, kMaxSteps = 5;  // per sync point, per class
  const size_t points_shown = RowsShown(c.sync_points.size(), o.top);
  for (size_t p = 0; p < points_shown; ++p) {
    const SyncPointClasses& sp = c.sync_points[p];
    out += fmt::format("\n  Sync point {}: {} waits, {}, {} class{}\n", w.sync_points[sp.sync_point].label, sp.count,
                       FormatDuration(sp.wait_ns), sp.classes.size(), sp.classes.size() == 1 ? "" : "es");
    for (size_t k = 0; k < sp.classes.size() && k < kMaxClasses; ++k) {
      const WaitClass& wc = sp.classes[k];
      out += fmt::format("    class {}: {} waits, {}; explained by\n", k + 1, wc.count, FormatDuration(wc.wait_ns));
      // The positive shares add up to 100 %: the steps not shown are summed on one line.
      size_t s = 0;
      for (; s < wc.steps.size() && s < kMaxSteps && wc.shares[s] > 0; ++s) {
        out += fmt::format("      {:>6} %  {} ({})\n", FormatPercent(wc.shares[s]), RegionName(t, wc.steps[s].region),
                           StepStateName(wc.steps[s].state));
      }
      double rest = 0;
      size_t others = 0;
      for (; s < wc.steps.size() && wc.shares[s] > 0; ++s, ++others) rest += wc.shares[s];
      if (others > 0) out += fmt::format("      {:>6} %  {} other step{}\n", FormatPercent(rest), others, others == 1 ? "" : "s");
    }
  }
  if (points_shown < c.sync_points.size())
    out += "\n" + RowsLeftOut(c.sync_points.size(), points_shown);
  out += "\n  Largest waits\n";
  const size_t waiter_width = LocationColumnWidth(t, 16);
  out += fmt::format("  {:>14} {:>14}  {:<18} {:<{}} {}\n", "wait", "start", "kind", "waiter", waiter_width, "waited for");
  const size_t largest_shown = RowsShown(w.instances.size(), o.top);
  for (const WaitInstance* i : Largest(w, largest_shown)) {
    out += fmt::format("  {:>14} {:>14}  {:<18} {:<{}} {}\n", FormatDuration(i->wait_ns),
                       FormatDuration(i->start_ns - t.origin_ns()), WaitKindName(i->kind), LocationName(t, i->waiter), waiter_width,
                       LocationName(t, i->late));
  }
  out += RowsLeftOut(w.instances.size(), largest_shown);
  const TimeNs delay = TotalDelay(c);
  if (delay > 0) {
    out += "\n  These regions caused most of the waiting (the late locations' excess time):\n";
    const size_t causes_shown = RowsShown(c.root_causes.size(), o.top);
    for (size_t i = 0; i < causes_shown; ++i) {
      const RegionDelay& d = c.root_causes[i];
      out += fmt::format("  {:>14} {:>8} %  {}\n", FormatDuration(d.delay_ns),
                         FormatPercent(static_cast<double>(d.delay_ns) / delay), RegionName(t, d.region));
    }
    out += RowsLeftOut(c.root_causes.size(), causes_shown);
  }
  return out;
}

}  // namespace

Result<std::string> RenderWaits(const Trace& t, const WaitStates& w, const Characterization& c, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return WaitsText(t, w, c, o);
    case OutputFormat::kJson: return WaitsJson(t, w, c, o);
    case OutputFormat::kCsv: return WaitsCsv(t, w);
    default:
      return InvalidArgument(fmt::format("waits has no {} output (use text, json or csv)", OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
