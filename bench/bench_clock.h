// What the benchmarks time with: the median of repeated runs, and the calling thread's CPU time
// (on a machine shared with other jobs the wall time measures the scheduler as much as the code).
#pragma once

#include <algorithm>
#include <ctime>
#include <vector>

namespace grainscope::bench {

inline double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

inline double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace grainscope::bench
