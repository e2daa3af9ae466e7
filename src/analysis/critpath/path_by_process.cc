#include "analysis/critpath/path_by_process.h"

#include <algorithm>
#include <map>

namespace grainscope {

PathByProcess SplitPathByProcess(const Trace& t, const CriticalPath& cp) {
  PathByProcess out;
  std::map<uint32_t, TimeNs> time;
  const PathSegment* previous = nullptr;
  for (const PathSegment& s : cp.path) {
    const uint32_t process = t.location(s.location).group;
    time[process] += s.time_ns;
    if (previous != nullptr && t.location(previous->location).group != process)
      out.crossings.push_back({s.start_ns, previous->location, s.location});
    previous = &s;
  }
  for (const auto& [process, ns] : time) {
    const double fraction = cp.length_ns > 0 ? static_cast<double>(ns) / static_cast<double>(cp.length_ns) : 0;
    out.processes.push_back({LocationId(process), ns, fraction});
  }
  std::stable_sort(out.processes.begin(), out.processes.end(),
                   [](const ProcessPathTime& a, const ProcessPathTime& b) { return a.time_ns > b.time_ns; });
  return out;
}

}  // namespace grainscope
