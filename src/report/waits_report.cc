#include <algorithm>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "base/parallel.h"
#include "report/region_name.h"
#include "report/json_writer.h"
#include "report/location_column.h"
#include "report/waits_report.h"
#include "report/rows.h"

namespace grainscope {
namespace {

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

using json = nlohmann::ordered_json;

// A sync point's classes of waits, each class with the steps that explain it and their shares.
json SyncPointJson(const Trace& t, const WaitStates& w, const SyncPointClasses& sp) {
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
  return json{{"id", sp.sync_point},
              {"label", w.sync_points[sp.sync_point].label},
              {"wait_ns", sp.wait_ns},
              {"count", sp.count},
              {"classes", std::move(classes)}};
}

// The regions that waited, the slot past the last region being waits outside any region.
json RegionsJson(const Trace& t, const WaitStates& w) {
  json regions = json::array();
  for (uint32_t r = 0; r < w.by_region.size(); ++r) {
    if (w.by_region[r] == 0) continue;
    regions.push_back({{"region", RegionName(t, r + 1 == w.by_region.size() ? RegionId() : RegionId(r))},
                       {"wait_ns", w.by_region[r]}});
  }
  return regions;
}

json LargestJson(const Trace& t, const WaitStates& w) {
  json largest = json::array();
  for (const WaitInstance* i : Largest(w, 20)) {
    largest.push_back({{"kind", WaitKindName(i->kind)},
                       {"waiter", LocationName(t, i->waiter)},
                       {"late", LocationName(t, i->late)},
                       {"start_ns", i->start_ns - t.origin_ns()},
                       {"wait_ns", i->wait_ns},
                       {"sync_point", i->sync_point}});
  }
  return largest;
}

json RootCausesJson(const Trace& t, const Characterization& c) {
  const TimeNs delay = TotalDelay(c);
  json causes = json::array();
  for (const RegionDelay& d : c.root_causes) {
    causes.push_back({{"region", RegionName(t, d.region)},
                      {"delay_ns", d.delay_ns},
                      {"fraction", delay > 0 ? static_cast<double>(d.delay_ns) / delay : 0.0}});
  }
  return causes;
}

// Written member by member (json_writer.h): a sync point and a location per element.
void WaitsJson(const Trace& t, const WaitStates& w, const Characterization& c, const RenderOptions& o, TextSink& out) {
  JsonReportWriter j(out);
  j.Member("total_wait_ns", w.total_ns);
  j.Member("eager_limit_bytes", w.eager_limit_bytes);
  j.Member("eager_limit_source", w.eager_limit_source);
  j.Array("kinds", kWaitKindCount, [&](size_t k) {
    return json{{"kind", WaitKindName(static_cast<WaitKind>(k))}, {"count", w.count[k]}, {"time_ns", w.time_ns[k]}};
  });
  j.Array("sync_points", c.sync_points.size(), [&](size_t i) { return SyncPointJson(t, w, c.sync_points[i]); });
  j.Array("locations", w.by_location.size(), [&](size_t l) {
    return json{{"location", LocationName(t, LocationId(static_cast<uint32_t>(l)))}, {"wait_ns", w.by_location[l]}};
  });
  j.Member("regions", RegionsJson(t, w));
  j.Member("largest", LargestJson(t, w));
  j.Member("root_causes", RootCausesJson(t, c));
  j.Finish(o.notes);
}

void WaitsCsv(const Trace& t, const WaitStates& w, TextSink& out) {
  out.text() += "kind,waiter,late,start_ns,wait_ns,sync_point\n";
  AppendInOrder(out, w.instances.size(), Threads(), [&](size_t k, std::string& text) {
    const WaitInstance& i = w.instances[k];
    fmt::format_to(std::back_inserter(text), "{},{},{},{},{},{}\n", WaitKindName(i.kind),
                   CsvField(LocationName(t, i.waiter)), CsvField(LocationName(t, i.late)), i.start_ns - t.origin_ns(),
                   i.wait_ns, CsvField(w.sync_points[i.sync_point].label));
  });
}

// The total, the eager limit where there are messages, and the count and time per kind of wait.
void AppendKinds(std::string& out, const Trace& t, const WaitStates& w, const RenderOptions& o) {
  out += fmt::format("Wait states: {}\n  total waiting time {} in {} waits\n", o.source, FormatDuration(w.total_ns),
                     w.instances.size());
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
}

void AppendLocations(std::string& out, const Trace& t, const WaitStates& w, size_t top) {
  const size_t lw = LocationColumnWidth(t, 20);
  out += fmt::format("\n  {:<{}} {:>14}\n", "location", lw, "waiting");
  AppendRows(out, w.by_location.size(), top, [&](size_t l) {
    return fmt::format("  {:<{}} {:>14}\n", LocationName(t, LocationId(static_cast<uint32_t>(l))), lw,
                       FormatDuration(w.by_location[l]));
  });
}

// One class of waits: its first steps by share, the rest summed on one line (the positive shares
// add up to 100 %, so the reader sees where the remainder went).
void AppendWaitClass(std::string& out, const Trace& t, const WaitClass& wc, size_t number) {
  constexpr size_t kMaxSteps = 5;
  out += fmt::format("    class {}: {} waits, {}; explained by\n", number, wc.count, FormatDuration(wc.wait_ns));
  size_t s = 0;
  for (; s < wc.steps.size() && s < kMaxSteps && wc.shares[s] > 0; ++s) {
    out += fmt::format("      {:>6} %  {} ({})\n", FormatPercent(wc.shares[s]), TextRegionName(t, wc.steps[s].region),
                       StepStateName(wc.steps[s].state));
  }
  double rest = 0;
  size_t others = 0;
  for (; s < wc.steps.size() && wc.shares[s] > 0; ++s, ++others) rest += wc.shares[s];
  if (others > 0) out += fmt::format("      {:>6} %  {} other step{}\n", FormatPercent(rest), others, others == 1 ? "" : "s");
}

void AppendSyncPoints(std::string& out, const Trace& t, const WaitStates& w, const Characterization& c, size_t top) {
  constexpr size_t kMaxClasses = 5;  // per sync point
  const size_t shown = RowsShown(c.sync_points.size(), top);
  for (size_t p = 0; p < shown; ++p) {
    const SyncPointClasses& sp = c.sync_points[p];
    out += fmt::format("\n  Sync point {}: {} waits, {}, {} class{}\n", w.sync_points[sp.sync_point].label, sp.count,
                       FormatDuration(sp.wait_ns), sp.classes.size(), sp.classes.size() == 1 ? "" : "es");
    for (size_t k = 0; k < sp.classes.size() && k < kMaxClasses; ++k) AppendWaitClass(out, t, sp.classes[k], k + 1);
  }
  if (shown < c.sync_points.size()) out += "\n" + RowsLeftOut(c.sync_points.size(), shown);
}

void AppendLargest(std::string& out, const Trace& t, const WaitStates& w, size_t top) {
  out += "\n  Largest waits\n";
  const size_t waiter_width = LocationColumnWidth(t, 16);
  out += fmt::format("  {:>14} {:>14}  {:<18} {:<{}} {}\n", "wait", "start", "kind", "waiter", waiter_width, "waited for");
  const size_t shown = RowsShown(w.instances.size(), top);
  for (const WaitInstance* i : Largest(w, shown)) {
    out += fmt::format("  {:>14} {:>14}  {:<18} {:<{}} {}\n", FormatDuration(i->wait_ns),
                       FormatDuration(i->start_ns - t.origin_ns()), WaitKindName(i->kind), LocationName(t, i->waiter), waiter_width,
                       LocationName(t, i->late));
  }
  out += RowsLeftOut(w.instances.size(), shown);
}

// The regions whose excess time on the late locations caused the waiting; nothing when no delay.
void AppendRootCauses(std::string& out, const Trace& t, const Characterization& c, size_t top) {
  const TimeNs delay = TotalDelay(c);
  if (delay <= 0) return;
  out += "\n  These regions caused most of the waiting (the late locations' excess time):\n";
  AppendRows(out, c.root_causes.size(), top, [&](size_t i) {
    const RegionDelay& d = c.root_causes[i];
    return fmt::format("  {:>14} {:>8} %  {}\n", FormatDuration(d.delay_ns),
                       FormatPercent(static_cast<double>(d.delay_ns) / delay), TextRegionName(t, d.region));
  });
}

std::string WaitsText(const Trace& t, const WaitStates& w, const Characterization& c, const RenderOptions& o) {
  std::string out;
  AppendKinds(out, t, w, o);
  AppendLocations(out, t, w, o.top);
  AppendSyncPoints(out, t, w, c, o.top);
  AppendLargest(out, t, w, o.top);
  AppendRootCauses(out, t, c, o.top);
  return out;
}

}  // namespace

Status WriteWaits(const Trace& t, const WaitStates& w, const Characterization& c, const RenderOptions& o,
                  TextSink& out) {
  switch (o.format) {
    case OutputFormat::kText: out.text() += WaitsText(t, w, c, o); return OkStatus();
    case OutputFormat::kJson: WaitsJson(t, w, c, o, out); return OkStatus();
    case OutputFormat::kCsv: WaitsCsv(t, w, out); return OkStatus();
    default:
      return InvalidArgument(fmt::format("waits has no {} output (use text, json or csv)", OutputFormatName(o.format)));
  }
}

Result<std::string> RenderWaits(const Trace& t, const WaitStates& w, const Characterization& c, const RenderOptions& o) {
  return CollectText([&](TextSink& out) { return WriteWaits(t, w, c, o, out); });
}

}  // namespace grainscope
