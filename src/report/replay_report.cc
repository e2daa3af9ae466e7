#include <nlohmann/json.hpp>
#include <fmt/format.h>

#include "report/region_name.h"
#include "report/location_column.h"
#include "report/replay_report.h"
#include "report/rows.h"

namespace grainscope {
namespace {

std::string Change(TimeNs measured, TimeNs predicted) {
  if (measured == 0) return "";
  return fmt::format("{:+.1f} %", 100.0 * static_cast<double>(predicted - measured) / static_cast<double>(measured));
}

// "3 (2 messages received before they were sent, 1 collective ...): try --clc".
std::string ClockViolationsText(const ReplayResult& r) {
  const ClockViolations& v = r.clock_violations;
  if (v.total() == 0) return "0";
  std::string text = fmt::format("{}   ({} receive{} before the send, {} collective end{} before a feeding begin",
                                 v.total(), v.messages, v.messages == 1 ? "" : "s", v.collectives,
                                 v.collectives == 1 ? "" : "s");
  if (v.dependencies > 0)
    text += fmt::format(", {} dependency target{} before its source", v.dependencies, v.dependencies == 1 ? "" : "s");
  text += ")";
  return text + (r.clocks_corrected ? "; corrected by --clc before the replay" : "; --clc corrects them");
}

std::string ReplayJson(const Trace& t, const ReplayResult& r, const CriticalPath& cp, const std::string& what_if, const RenderOptions& o) {
  using json = nlohmann::ordered_json;
  json j;
  j["model"] = what_if;
  j["measured_ns"] = r.measured_ns;
  j["predicted_ns"] = r.predicted_ns;
  j["max_deviation_ns"] = r.max_deviation_ns;
  j["clock_violations"] = r.clock_violations.total();
  j["message_clock_violations"] = r.clock_violations.messages;
  j["collective_clock_violations"] = r.clock_violations.collectives;
  j["dependency_clock_violations"] = r.clock_violations.dependencies;
  j["clocks_corrected"] = r.clocks_corrected;
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
  return FinishJson(j, o.notes);
}

std::string ReplayText(const Trace& t, const ReplayResult& r, const CriticalPath& cp, const std::string& what_if,
                       const RenderOptions& o) {
  std::string out = fmt::format("Replay: {}\n  model: {}\n\n", o.source, what_if);
  auto line = [&](std::string_view key, const std::string& value) { out += fmt::format("  {:<20} {}\n", key, value); };
  line("measured run", FormatDuration(r.measured_ns));
  line("predicted run", fmt::format("{}   ({})", FormatDuration(r.predicted_ns), Change(r.measured_ns, r.predicted_ns)));
  line("identity replay", fmt::format("max deviation {} over {} events", FormatDuration(r.max_deviation_ns),
                                      r.events));
  line("clock violations", ClockViolationsText(r));
  const size_t lw = LocationColumnWidth(t, 20);
  out += fmt::format("\n  {:<{}} {:>14} {:>14} {:>9}\n", "location", lw, "measured", "predicted", "change");
  const size_t locations_shown = RowsShown(r.locations.size(), o.top);
  for (size_t i = 0; i < locations_shown; ++i) {
    const LocationReplay& l = r.locations[i];
    out += fmt::format("  {:<{}} {:>14} {:>14} {:>9}\n", LocationName(t, l.location), lw, FormatDuration(l.measured_ns),
                       FormatDuration(l.predicted_ns), Change(l.measured_ns, l.predicted_ns));
  }
  out += RowsLeftOut(r.locations.size(), locations_shown);
  out += fmt::format("\n  Critical path of the replayed run: {} (ends on {})\n", FormatDuration(cp.length_ns),
                     LocationName(t, cp.end_location));
  const size_t profile_shown = RowsShown(cp.profile.size(), o.top);
  for (size_t i = 0; i < profile_shown; ++i) {
    out += fmt::format("  {:>14} {:>8}  {}\n", FormatDuration(cp.profile[i].time_ns), FormatPercent(cp.profile[i].fraction),
                       TextRegionName(t, cp.profile[i].region));
  }
  return out + RowsLeftOut(cp.profile.size(), profile_shown);
}

}  // namespace

Result<std::string> RenderReplay(const Trace& t, const ReplayResult& r, const CriticalPath& cp,
                                 const std::string& what_if, const RenderOptions& o) {
  switch (o.format) {
    case OutputFormat::kText: return ReplayText(t, r, cp, what_if, o);
    case OutputFormat::kJson: return ReplayJson(t, r, cp, what_if, o);
    default:
      return InvalidArgument(fmt::format("replay has no {} output (use text or json)", OutputFormatName(o.format)));
  }
}

}  // namespace grainscope
