#include "report/region_name.h"
#include "report/instances_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "report/grain_id.h"
#include "report/location_column.h"
#include "report/notes.h"
#include "report/units.h"

namespace grainscope {
namespace {

std::string_view RegionName(const Trace& t, const RegionInstance& r) { return t.str(t.region(r.region).name); }
int64_t IdOrNone(const RegionInstance& r) { return r.id.value_or(-1); }

}  // namespace

std::string InstancesText(const Trace& t, const RegionInstances& in) {
  std::string out = fmt::format("\nLongest region instances: {} of {}\n", in.rows.size(), in.total);
  if (in.rows.empty()) return out;
  size_t rw = 6;
  for (const RegionInstance& r : in.rows) rw = std::max(rw, TextName(RegionName(t, r)).size());
  out += fmt::format("  {:>14}  {:<{}} {:>10}  {:<24} {:>14}\n", "time", "region", rw, "id", "location", "start");
  for (const RegionInstance& r : in.rows) {
    out += fmt::format("  {:>14}  {:<{}} {:>10}  {:<24} {:>14}\n", FormatDuration(r.duration), TextName(RegionName(t, r)), rw,
                       GrainIdText(IdOrNone(r)), LocationName(t, r.location), FormatDuration(r.start - t.origin_ns()));
  }
  if (in.rows.size() < in.total)
    out += fmt::format("  ... {} shorter instances (--top N; --format json or csv --table instances lists all)\n",
                       in.total - in.rows.size());
  return out;
}

void AddInstancesJson(const Trace& t, const RegionInstances& in, nlohmann::ordered_json& j) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const RegionInstance& r : in.rows) {
    rows.push_back({{"region", RegionName(t, r)},
                    {"id", GrainIdJson(IdOrNone(r))},
                    {"location", LocationName(t, r.location)},
                    {"start_ns", r.start - t.origin_ns()},
                    {"duration_ns", r.duration}});
  }
  j["instances"] = std::move(rows);
}

std::string InstancesCsv(const Trace& t, const RegionInstances& in) {
  std::string out = "region,id,location,start_ns,duration_ns\n";
  for (const RegionInstance& r : in.rows) {
    out += fmt::format("{},{},{},{},{}\n", CsvField(RegionName(t, r)), GrainIdCsv(IdOrNone(r)),
                       CsvField(LocationName(t, r.location)), r.start - t.origin_ns(), r.duration);
  }
  return out;
}

}  // namespace grainscope
