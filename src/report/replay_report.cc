#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/render.h"

namespace grainscope {
namespace {

std::string_view LocationName(const Trace& t, LocationId l) { return t.str(t.location(l).name); }
std::string_view RegionName(const Trace& t, RegionId r) {
  return r.valid() ? t.str(t.region(r).name) : std::string_view("(outside regions)");
}

std::string Change(TimeNs measured, TimeNs predicted) {
  if (measured == 0) return "";
  return fmt::format("{:+.1f} %", 100.0 * static_cast<double>(predicted - measured) / static_cast<double>(measured));
}

std::string ReplayJson(const Trace& t, const ReplayResult& r, const CriticalPath& cp, const std::string& what_if) {
  using json = nlohmann::ordered_json;
  json j;
  j["model"] = what_if;
  j["measured_ns"] = r.measured_ns;
  j["predicted_ns"] = r.predicted_ns;
  j["max_deviation_ns"] = r.max_deviation_ns;
  j["clock_violations"] = r.clock_violations;
  json locs = json::array();
  for (const LocationReplay& l : r.locations) {
    locs.push_back({{"id", t.location(l.location).external_id},
                    {"name", LocationName(t, l.location)},
                    {"measured_ns", l.measured_ns},
                    {"predicted_ns", l.predicted_ns}});
  }
  j["locations"] = std::move(locs);
  json path;
  path["length_ns"] = cp.length_ns;
  path["end_location"] = LocationName(t, cp.end_location);
  json profile = json::array();
  for (const RegionPathTime& p : cp.profile)
    profile.push_back({{"region", RegionName(t, p.region)}, {"time_ns", p.time_ns}, {"fraction", p.fraction}});
  path["profile"] = std::move(profile);
  j["critical_path"] = std::move(path);
  return j.dump(2) + "\n";
}

std::string ReplayText(const Trace& t, const ReplayResult& r, const CriticalPath& cp, const std::string& what_if,
                       const RenderOptions& o) {
  std::string out = fmt::format("Replay: {}\n  model: {}\n\n", o.source, what_if);
  auto line = [&](std::string_view key, const std::string& value) { out += fmt::format("  {:<20} {}\n", key, value); };
  line("measured run", FormatDuration(r.measured_ns));
  line("predicted run", fmt::format("{}   ({})", FormatDuration(r.predicted_ns), Change(r.measured_ns, r.predicted_ns)));
  line("identity replay", fmt::format("max deviation {} over {} events", FormatDuration(r.max_deviation_ns),
                                      t.event_count()));
  line("clock violations", fmt::format("{}{}", r.clock_violations,
                                       r.clock_violations > 0 ? "   (receives before sends: try --clc)" : ""));
  out += fmt::format("\n  {:<20} {:>14} {:>14} {:>9}\n", "location", "measured", "predicted", "change");
  constexpr size_t kMaxRows = 64;
  for (size_t i = 0; i < r.locations.size() && i < kMaxRows; ++i) {
    const LocationReplay& l = r.locations[i];
    out += fmt::format("  {:<20} {:>14} {:>14} {:>9}\n", LocationName(t, l.location), FormatDuration(l.measured_ns),
                       FormatDuration(l.predicted_ns), Change(l.measured_ns, l.predicted_ns));
  }
  if (r.locations.size() > kMaxRows) out += fmt::format("  ... {} more locations\n", r.locations.size() - kMaxRows);
  out += fmt::format("\n  Critical path of the replayed run: {} (ends on {})\n", FormatDuration(cp.length_ns),
                     LocationName(t, cp.end_location));
  for (size_t i = 0; i < cp.profile.size() && i < 10; ++i) {
    out += fmt::format("  {:>14} {:>8}  {}\n", FormatDuration(cp.profile[i].time_ns), FormatPercent(cp.profile[i].fraction),
                       RegionName(t, cp.profile[i].region));
  }
  return out;
}

}  // namespace

Result<std::string> RenderReplay(const Trace& t, const ReplayResult& r, const CriticalPath& cp,
                                 const std::string& what_if, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return ReplayText(t, r, cp, what_if, o);
    case OutputFormat::kJson: return ReplayJson(t, r, cp, what_if);
    default:
      return InvalidArgument(fmt::format("replay has no {} output (use text or json)", OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
