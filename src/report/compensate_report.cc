#include <cmath>

#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/region_name.h"
#include "report/location_column.h"
#include "report/compensate_report.h"
#include "report/rows.h"

namespace grainscope {
namespace {

std::string Change(TimeNs measured, TimeNs compensated) {
  if (measured == 0) return "";
  return fmt::format("{:+.1f} %", 100.0 * static_cast<double>(compensated - measured) / static_cast<double>(measured));
}

// The per-event overhead: whole ns as an integer, a calibrated value with its decimals.
bool IsWholeNs(double ns) { return ns == std::floor(ns) && ns < 9e15; }

std::string FormatOverhead(double ns) {
  if (IsWholeNs(ns)) return FormatDuration(static_cast<TimeNs>(ns));
  return fmt::format("{:.2f} ns", ns);
}

std::string CompensationJson(const Trace& t, const Compensation& c, const RenderOptions& o) {
  using json = nlohmann::ordered_json;
  json j;
  j["measured_ns"] = c.measured_ns;
  j["compensated_ns"] = c.compensated_ns;
  j["naive_ns"] = c.naive_ns;
  if (IsWholeNs(c.overhead_per_event_ns)) {
    j["overhead_per_event_ns"] = static_cast<int64_t>(c.overhead_per_event_ns);
  } else {
    j["overhead_per_event_ns"] = c.overhead_per_event_ns;
  }
  j["overhead_source"] = c.overhead_source;
  json grains = json::array();
  for (const RegionCompensation& r : c.regions) {
    grains.push_back({{"region", RegionName(t, r.region)},
                      {"instances", r.instances},
                      {"measured_ns", r.measured_ns},
                      {"compensated_ns", r.compensated_ns}});
  }
  j["grains"] = std::move(grains);
  json locs = json::array();
  for (const LocationReplay& l : c.locations) {
    locs.push_back({{"id", t.location(l.location).external_id},
                    {"name", LocationName(t, l.location)},
                    {"measured_ns", l.measured_ns},
                    {"compensated_ns", l.predicted_ns}});
  }
  j["locations"] = std::move(locs);
  return FinishJson(j, o.notes, c.notes);
}

std::string CompensationCsv(const Trace& t, const Compensation& c) {
  std::string out = "region,instances,measured_ns,compensated_ns\n";
  for (const RegionCompensation& r : c.regions)
    out += fmt::format("{},{},{},{}\n", CsvField(RegionName(t, r.region)), r.instances, r.measured_ns, r.compensated_ns);
  return out;
}

std::string CompensationText(const Trace& t, const Compensation& c, const RenderOptions& o) {
  std::string out = fmt::format("Overhead compensation: {}\n", o.source);
  auto line = [&](std::string_view key, const std::string& value) { out += fmt::format("  {:<26} {}\n", key, value); };
  line("overhead per event", fmt::format("{} ({})", FormatOverhead(c.overhead_per_event_ns), c.overhead_source));
  line("measured run", FormatDuration(c.measured_ns));
  line("compensated run", fmt::format("{}   ({})", FormatDuration(c.compensated_ns), Change(c.measured_ns, c.compensated_ns)));
  line("naive (no propagation)", fmt::format("{}   ({})", FormatDuration(c.naive_ns), Change(c.measured_ns, c.naive_ns)));
  for (const std::string& note : c.notes) out += fmt::format("  note: {}\n", note);
  out += fmt::format("\n  {:>14} {:>14} {:>9} {:>9}  {}\n", "measured", "compensated", "change", "count", "region");
  const size_t regions_shown = RowsShown(c.regions.size(), o.top);
  for (size_t i = 0; i < regions_shown; ++i) {
    const RegionCompensation& r = c.regions[i];
    out += fmt::format("  {:>14} {:>14} {:>9} {:>9}  {}\n", FormatDuration(r.measured_ns), FormatDuration(r.compensated_ns),
                       Change(r.measured_ns, r.compensated_ns), r.instances, TextRegionName(t, r.region));
  }
  out += RowsLeftOut(c.regions.size(), regions_shown);
  const size_t lw = LocationColumnWidth(t, 20);
  out += fmt::format("\n  {:<{}} {:>14} {:>14} {:>9}\n", "location", lw, "measured", "compensated", "change");
  const size_t locations_shown = RowsShown(c.locations.size(), o.top);
  for (size_t i = 0; i < locations_shown; ++i) {
    const LocationReplay& l = c.locations[i];
    out += fmt::format("  {:<{}} {:>14} {:>14} {:>9}\n", LocationName(t, l.location), lw, FormatDuration(l.measured_ns),
                       FormatDuration(l.predicted_ns), Change(l.measured_ns, l.predicted_ns));
  }
  return out + RowsLeftOut(c.locations.size(), locations_shown);
}

}  // namespace

Result<std::string> RenderCompensation(const Trace& t, const Compensation& c, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return CompensationText(t, c, o);
    case OutputFormat::kJson: return CompensationJson(t, c, o);
    case OutputFormat::kCsv: return CompensationCsv(t, c);
    default:
      return InvalidArgument(fmt::format("compensate has no {} output (use text, json or csv)", OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
