#include "report/region_name.h"
#include "report/regions_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/location_column.h"
#include "report/rows.h"
#include "report/units.h"

namespace grainscope {
namespace {

using json = nlohmann::ordered_json;

// The classes as the text tables name them.
std::string_view ClassTitle(TimeClass c) {
  switch (c) {
    case TimeClass::kComputation: return "computation";
    case TimeClass::kPointToPoint: return "MPI p2p";
    case TimeClass::kCollective: return "MPI collective";
    case TimeClass::kSynchronization: return "MPI sync";
    case TimeClass::kOtherMpi: return "MPI other";
    case TimeClass::kInitFinalize: return "MPI init/fin.";
    case TimeClass::kThreadSync: return "thread/GPU sync";
    case TimeClass::kGpu: return "GPU";
    case TimeClass::kIdle: return "idle";
  }
  return "?";
}

std::string Key(TimeClass c) { return fmt::format("{}_ns", TimeClassName(c)); }


json StatsJson(const RegionStats& s) {
  return {{"calls", s.calls},         {"inclusive_ns", s.inclusive_ns}, {"exclusive_ns", s.exclusive_ns},
          {"min_ns", s.min_ns},       {"mean_ns", s.mean_ns()},         {"max_ns", s.max_ns}};
}

}  // namespace

namespace {

// The classes a text table shows: those with time anywhere, and always computation and idle (a
// GPU column of zeros on an MPI trace says nothing).
std::vector<TimeClass> ShownClasses(const TimeBreakdown& time) {
  std::vector<TimeClass> shown;
  for (int c = 0; c < kTimeClassCount; ++c) {
    const auto tc = static_cast<TimeClass>(c);
    if (time.total[c] > 0 || tc == TimeClass::kComputation || tc == TimeClass::kIdle) shown.push_back(tc);
  }
  return shown;
}

std::string LocationTimeText(const Trace& t, const TimeBreakdown& time, size_t top) {
  const size_t nloc = time.locations.size();
  const size_t shown_loc = RowsShown(nloc, top);
  const std::vector<TimeClass> classes = ShownClasses(time);
  constexpr std::string_view kAll = "all locations";
  size_t width = kAll.size();
  for (size_t i = 0; i < shown_loc; ++i) width = std::max(width, LocationName(t, time.locations[i].location).size());
  std::string out = fmt::format("Time per location: run span {} ({} .. {}), {} location{}\n",
                                FormatDuration(time.span_ns), FormatDuration(t.start_ns() - t.origin_ns()),
                                FormatDuration(t.end_ns() - t.origin_ns()), nloc, nloc == 1 ? "" : "s");
  out += fmt::format("  {:<{}}", "location", width);
  for (TimeClass c : classes) out += fmt::format(" {:>15}", ClassTitle(c));
  out += "\n";
  auto row = [&](std::string_view name, const TimeNs* ns) {
    out += fmt::format("  {:<{}}", name, width);
    for (TimeClass c : classes) out += fmt::format(" {:>15}", FormatDuration(ns[static_cast<int>(c)]));
    out += "\n";
  };
  for (size_t i = 0; i < shown_loc; ++i) row(LocationName(t, time.locations[i].location), time.locations[i].ns);
  out += RowsLeftOut(nloc, shown_loc);
  row(kAll, time.total);
  TimeNs all = 0;
  for (int c = 0; c < kTimeClassCount; ++c) all += time.total[c];
  out += fmt::format("  {:<{}}", "% of all", width);
  for (TimeClass c : classes) {
    const TimeNs ns = time.total[static_cast<int>(c)];
    out += fmt::format(" {:>15}", all > 0 ? FormatPercent(static_cast<double>(ns) / static_cast<double>(all)) : "-");
  }
  return out + "\n";
}

std::string RegionTableText(const Trace& t, const TimeBreakdown& time, const RegionProfile& regions, size_t top) {
  const size_t nreg = regions.rows.size();
  const size_t shown_reg = RowsShown(nreg, top);
  std::string out = fmt::format("\nRegions by exclusive time: {} region{} called\n", nreg, nreg == 1 ? "" : "s");
  if (nreg == 0) return out;
  size_t rwidth = 6;
  for (size_t i = 0; i < shown_reg; ++i) rwidth = std::max(rwidth, TextRegionName(t, regions.rows[i].region).size());
  out += fmt::format("  {:<{}} {:<15} {:>10} {:>14} {:>14} {:>14} {:>14} {:>14}\n", "region", rwidth, "class", "calls",
                     "exclusive", "inclusive", "min", "mean", "max");
  for (size_t i = 0; i < shown_reg; ++i) {
    const RegionProfileRow& row = regions.rows[i];
    const RegionStats& s = row.total;
    out += fmt::format("  {:<{}} {:<15} {:>10} {:>14} {:>14} {:>14} {:>14} {:>14}\n", TextRegionName(t, row.region), rwidth,
                       ClassTitle(time.region_class[row.region.value]), s.calls, FormatDuration(s.exclusive_ns),
                       FormatDuration(s.inclusive_ns), FormatDuration(s.min_ns), FormatDuration(s.mean_ns()),
                       FormatDuration(s.max_ns));
  }
  return out + RowsLeftOut(nreg, shown_reg);
}

std::string RoleTableText(const std::vector<RoleProfileRow>& roles) {
  if (roles.empty()) return "";
  TimeNs all = 0;
  for (const RoleProfileRow& r : roles) all += r.exclusive_ns;
  std::string out = "\nExclusive time by role\n";
  out += fmt::format("  {:<16} {:>8} {:>12} {:>14} {:>8}\n", "role", "regions", "calls", "exclusive", "%");
  for (const RoleProfileRow& r : roles) {
    out += fmt::format("  {:<16} {:>8} {:>12} {:>14} {:>8}\n", RegionRoleName(r.role), r.regions, r.calls,
                       FormatDuration(r.exclusive_ns),
                       all > 0 ? FormatPercent(static_cast<double>(r.exclusive_ns) / static_cast<double>(all)) : "-");
  }
  return out;
}

}  // namespace

std::string TimeAndRegionsText(const Trace& t, const TimeBreakdown& time, const RegionProfile& regions, size_t top) {
  return LocationTimeText(t, time, top) + RoleTableText(ProfileByRole(t, regions)) +
         RegionTableText(t, time, regions, top);
}

void AddTimeAndRegionsJson(const Trace& t, const TimeBreakdown& time, const RegionProfile& regions, json& j) {
  j["span_ns"] = time.span_ns;
  j["start_ns"] = t.start_ns() - t.origin_ns();
  j["end_ns"] = t.end_ns() - t.origin_ns();
  json locations = json::array();
  for (const LocationTime& lt : time.locations) {
    json l = {{"location", LocationName(t, lt.location)}, {"id", t.location(lt.location).external_id}};
    for (int c = 0; c < kTimeClassCount; ++c) l[Key(static_cast<TimeClass>(c))] = lt.ns[c];
    locations.push_back(std::move(l));
  }
  j["locations"] = std::move(locations);
  json total = json::object();
  for (int c = 0; c < kTimeClassCount; ++c) total[Key(static_cast<TimeClass>(c))] = time.total[c];
  j["time_total"] = std::move(total);
  json rows = json::array();
  for (const RegionProfileRow& row : regions.rows) {
    json r = {{"region", RegionName(t, row.region)}, {"class", TimeClassName(time.region_class[row.region.value])}};
    r.update(StatsJson(row.total));
    json per = json::array();
    for (uint32_t k = row.first; k < row.first + row.count; ++k) {
      const LocationRegionStats& ls = regions.by_location[k];
      json l = {{"location", LocationName(t, ls.location)}, {"id", t.location(ls.location).external_id}};
      l.update(StatsJson(ls.stats));
      per.push_back(std::move(l));
    }
    r["locations"] = std::move(per);
    rows.push_back(std::move(r));
  }
  j["regions"] = std::move(rows);
  TimeNs all = 0;
  const std::vector<RoleProfileRow> roles = ProfileByRole(t, regions);
  for (const RoleProfileRow& r : roles) all += r.exclusive_ns;
  json by_role = json::array();
  for (const RoleProfileRow& r : roles) {
    by_role.push_back({{"role", RegionRoleName(r.role)}, {"regions", r.regions}, {"calls", r.calls},
                       {"exclusive_ns", r.exclusive_ns},
                       {"fraction", all > 0 ? static_cast<double>(r.exclusive_ns) / static_cast<double>(all) : 0.0}});
  }
  j["roles"] = std::move(by_role);
}

std::string LocationTimeCsv(const Trace& t, const TimeBreakdown& time) {
  std::string out = "location,id";
  for (int c = 0; c < kTimeClassCount; ++c) out += "," + Key(static_cast<TimeClass>(c));
  out += "\n";
  for (const LocationTime& lt : time.locations) {
    out += fmt::format("{},{}", CsvField(LocationName(t, lt.location)), t.location(lt.location).external_id);
    for (int c = 0; c < kTimeClassCount; ++c) out += fmt::format(",{}", lt.ns[c]);
    out += "\n";
  }
  return out;
}

std::string RegionProfileCsv(const Trace& t, const TimeBreakdown& time, const RegionProfile& regions) {
  std::string out = "region,class,calls,exclusive_ns,inclusive_ns,min_ns,mean_ns,max_ns\n";
  for (const RegionProfileRow& row : regions.rows) {
    const RegionStats& s = row.total;
    out += fmt::format("{},{},{},{},{},{},{},{}\n", CsvField(RegionName(t, row.region)),
                       TimeClassName(time.region_class[row.region.value]), s.calls, s.exclusive_ns, s.inclusive_ns, s.min_ns,
                       s.mean_ns(), s.max_ns);
  }
  return out;
}

}  // namespace grainscope
