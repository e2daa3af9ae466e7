// Critical-path sweep throughput and memory on synthetic traces (issue 5's targets: >= 30 million
// events/s for the sweep on one core, <= 16 bytes of analysis state per event).
//
//   critpath_bench [--smoke] [--events N[,N...]] [--repeat R]
// Prints one JSON object per trace size: events, messages, median seconds of the forward sweep and
// of the whole analysis (sweep + path + profile + slack), events/s, ns/event, state bytes/event.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "analysis/critpath/critpath.h"
#include "bench/synthetic/synthetic_trace.h"

namespace grainscope {
namespace {

double Seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Run(uint64_t events, int repeat) {
  SyntheticOptions o;
  o.events = events;
  Result<Trace> trace = GenerateSyntheticTrace(o);
  if (!trace.ok()) {
    std::fprintf(stderr, "critpath_bench: %s\n", trace.status().message().c_str());
    return 1;
  }
  const Trace& t = *trace;
  HbGraph g(t);
  std::vector<double> sweep, full;
  size_t state_bytes = 0;
  TimeNs length = 0;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    Result<ForwardSweep> f = SweepCriticalPath(g);
    auto t1 = std::chrono::steady_clock::now();
    if (!f.ok()) return 1;
    state_bytes = f->value.capacity() * sizeof(TimeNs) + f->cause.capacity() * sizeof(Cause) +
                  f->collective_argmax.capacity() * sizeof(uint32_t);
    sweep.push_back(Seconds(t0, t1));
    auto t2 = std::chrono::steady_clock::now();
    Result<CriticalPath> cp = ComputeCriticalPath(t);
    auto t3 = std::chrono::steady_clock::now();
    if (!cp.ok()) return 1;
    length = cp->length_ns;
    full.push_back(Seconds(t2, t3));
  }
  const double n = static_cast<double>(t.event_count());
  const double s = Median(sweep), a = Median(full);
  std::printf(
      "{\"bench\": \"critpath\", \"events\": %llu, \"locations\": %zu, \"messages\": %zu, \"repeat\": %d, "
      "\"sweep_s\": %.4f, \"sweep_events_per_s\": %.0f, \"sweep_ns_per_event\": %.2f, "
      "\"analysis_s\": %.4f, \"analysis_events_per_s\": %.0f, \"state_bytes_per_event\": %.2f, "
      "\"trace_bytes_per_event\": %.2f, \"length_ns\": %lld}\n",
      static_cast<unsigned long long>(t.event_count()), t.locations().size(), t.messages().size(), repeat, s,
      n / s, 1e9 * s / n, a, n / a, static_cast<double>(state_bytes) / n,
      static_cast<double>(sizeof(TimeNs) + sizeof(EventKind) + sizeof(uint32_t)), static_cast<long long>(length));
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace grainscope

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {1'000'000, 10'000'000, 100'000'000};
  int repeat = 5;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      sizes = {100'000};
      repeat = 1;
    } else if (std::strcmp(argv[i], "--events") == 0 && i + 1 < argc) {
      sizes.clear();
      for (char* p = std::strtok(argv[++i], ","); p; p = std::strtok(nullptr, ",")) sizes.push_back(std::strtoull(p, nullptr, 10));
    } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else {
      std::fprintf(stderr, "usage: critpath_bench [--smoke] [--events N[,N...]] [--repeat R]\n");
      return 2;
    }
  }
  for (uint64_t n : sizes)
    if (grainscope::Run(n, repeat) != 0) return 1;
  return 0;
}
