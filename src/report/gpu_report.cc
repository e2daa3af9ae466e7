#include "report/gpu_report.h"

#include <algorithm>
#include <string_view>

#include <fmt/format.h>

#include "report/location_column.h"
#include "report/region_name.h"
#include "report/rows.h"
#include "report/units.h"

namespace grainscope {
namespace {

using json = nlohmann::ordered_json;

std::string Share(TimeNs part, TimeNs whole) {
  return whole > 0 ? FormatPercent(static_cast<double>(part) / static_cast<double>(whole)) : "-";
}

std::string RanksText(const Trace& t, const GpuTime& gpu, size_t top) {
  const size_t shown = RowsShown(gpu.ranks.size(), top);
  size_t width = 4;
  for (size_t i = 0; i < shown; ++i) width = std::max(width, LocationName(t, gpu.ranks[i].process).size());
  std::string out = fmt::format("\nGPU time per rank (its streams together; % of the run span {}):\n",
                                FormatDuration(gpu.span_ns));
  out += fmt::format("  {:<{}} {:>7} {:>15} {:>6} {:>15} {:>15} {:>15} {:>8} {:>15} {:>9} {:>13}\n", "rank", width,
                     "streams", "busy", "%", "computation", "communication", "overlapped", "% comm", "idle",
                     "launches", "launch CPU");
  for (size_t i = 0; i < shown; ++i) {
    const GpuRankTime& r = gpu.ranks[i];
    out += fmt::format("  {:<{}} {:>7} {:>15} {:>6} {:>15} {:>15} {:>15} {:>8} {:>15} {:>9} {:>13}\n",
                       LocationName(t, r.process), width, r.streams, FormatDuration(r.busy_ns),
                       Share(r.busy_ns, gpu.span_ns), FormatDuration(r.compute_ns), FormatDuration(r.communication_ns),
                       FormatDuration(r.overlapped_ns), Share(r.overlapped_ns, r.communication_ns),
                       FormatDuration(r.idle_ns), r.launches, FormatDuration(r.launch_ns));
  }
  return out + RowsLeftOut(gpu.ranks.size(), shown);
}

std::string StreamsText(const Trace& t, const GpuTime& gpu, size_t top) {
  const size_t shown = RowsShown(gpu.streams.size(), top);
  size_t width = 6, rank_width = 4;
  auto rank_of = [&](const GpuStreamTime& s) { return TextName(LocationName(t, LocationId(t.location(s.stream).group))); };
  for (size_t i = 0; i < shown; ++i) {
    width = std::max(width, LocationName(t, gpu.streams[i].stream).size());
    rank_width = std::max(rank_width, rank_of(gpu.streams[i]).size());
  }
  std::string out = "\nGPU time per stream:\n";
  out += fmt::format("  {:<{}} {:<{}} {:>15} {:>6} {:>15} {:>15} {:>15}\n", "stream", width, "rank", rank_width, "busy",
                     "%", "computation", "copies", "communication");
  for (size_t i = 0; i < shown; ++i) {
    const GpuStreamTime& s = gpu.streams[i];
    out += fmt::format("  {:<{}} {:<{}} {:>15} {:>6} {:>15} {:>15} {:>15}\n", LocationName(t, s.stream), width,
                       rank_of(s), rank_width, FormatDuration(s.busy_ns()), Share(s.busy_ns(), gpu.span_ns),
                       FormatDuration(s.compute_ns), FormatDuration(s.copy_ns), FormatDuration(s.communication_ns));
  }
  return out + RowsLeftOut(gpu.streams.size(), shown);
}

std::string KernelsText(const Trace& t, const GpuTime& gpu, size_t top) {
  const size_t shown = RowsShown(gpu.kernels.size(), top);
  size_t width = 6;
  for (size_t i = 0; i < shown; ++i) width = std::max(width, TextRegionName(t, gpu.kernels[i].region).size());
  std::string out = fmt::format("\nGPU work by name: {} name{}, {} in all\n", gpu.kernels.size(),
                                gpu.kernels.size() == 1 ? "" : "s", FormatDuration(gpu.work_ns));
  out += fmt::format("  {:<{}} {:<15} {:>9} {:>15} {:>6} {:>15} {:>15}\n", "kernel", width, "role", "count", "total", "%",
                     "mean", "max");
  for (size_t i = 0; i < shown; ++i) {
    const KernelTime& k = gpu.kernels[i];
    out += fmt::format("  {:<{}} {:<15} {:>9} {:>15} {:>6} {:>15} {:>15}\n", TextRegionName(t, k.region), width,
                       RegionRoleName(t.region(k.region).role), k.count, FormatDuration(k.total_ns),
                       Share(k.total_ns, gpu.work_ns), FormatDuration(k.total_ns / static_cast<TimeNs>(k.count)),
                       FormatDuration(k.max_ns));
  }
  return out + RowsLeftOut(gpu.kernels.size(), shown);
}

}  // namespace

std::string GpuTimeText(const Trace& t, const GpuTime& gpu, size_t top) {
  if (gpu.empty()) return {};
  return RanksText(t, gpu, top) + StreamsText(t, gpu, top) + KernelsText(t, gpu, top);
}

void AddGpuTimeJson(const Trace& t, const GpuTime& gpu, json& j) {
  if (gpu.empty()) return;
  json ranks = json::array(), streams = json::array(), kernels = json::array();
  for (const GpuRankTime& r : gpu.ranks) {
    ranks.push_back({{"rank", LocationName(t, r.process)}, {"streams", r.streams}, {"busy_ns", r.busy_ns},
                     {"computation_ns", r.compute_ns}, {"communication_ns", r.communication_ns},
                     {"overlapped_ns", r.overlapped_ns}, {"exposed_communication_ns", r.exposed_ns()},
                     {"idle_ns", r.idle_ns}, {"launches", r.launches}, {"launch_ns", r.launch_ns}});
  }
  for (const GpuStreamTime& s : gpu.streams) {
    streams.push_back({{"stream", LocationName(t, s.stream)},
                       {"rank", LocationName(t, LocationId(t.location(s.stream).group))}, {"busy_ns", s.busy_ns()},
                       {"computation_ns", s.compute_ns}, {"copy_ns", s.copy_ns}, {"communication_ns", s.communication_ns}});
  }
  for (const KernelTime& k : gpu.kernels) {
    kernels.push_back({{"name", RegionName(t, k.region)}, {"role", RegionRoleName(t.region(k.region).role)},
                       {"count", k.count}, {"total_ns", k.total_ns}, {"max_ns", k.max_ns}});
  }
  j["gpu"] = {{"span_ns", gpu.span_ns}, {"work_ns", gpu.work_ns}, {"ranks", std::move(ranks)},
              {"streams", std::move(streams)}, {"kernels", std::move(kernels)}};
}

}  // namespace grainscope
