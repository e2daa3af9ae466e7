#include "analysis/waits/launch_origins.h"

#include "model/dependencies.h"

namespace grainscope {

std::vector<std::optional<LaunchOrigin>> LaunchOrigins(const Trace& t) {
  std::vector<std::optional<LaunchOrigin>> out(t.locations().size());
  const DependencyTable& d = t.dependencies();
  for (size_t i = 0; i < d.size(); ++i) {
    if (d.kind[i] != DependencyKind::kGpuLaunch || d.to_event[i] != 0 || d.from_location[i] == d.to_location[i]) continue;
    std::optional<LaunchOrigin>& o = out[d.to_location[i].value];
    if (!o) o = LaunchOrigin{d.from_location[i], d.from_event[i]};
  }
  return out;
}

}  // namespace grainscope
