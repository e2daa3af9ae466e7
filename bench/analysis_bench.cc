// Throughput and memory of the analyses on synthetic traces (bench/synthetic), one JSON object
// per analysis and trace size. Targets: critical-path sweep >= 30 M events/s with <= 16 bytes
// of state per event (issue 5); latency+bandwidth replay >= 20 M events/s (issue 6).
//
//   analysis_bench [--smoke] [--events N[,N...]] [--repeat R] [--only critpath|replay|waits]
// Times are medians over R runs on one core; the trace is generated once per size.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/replay.h"
#include "analysis/waits/characterize.h"
#include "bench/synthetic/synthetic_trace.h"

namespace grainscope {
namespace {

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

// The median CPU seconds of the last Time() call: on a machine shared with other jobs the wall
// time measures the scheduler as much as the code; the thread's CPU time does not.
double g_last_cpu_seconds = 0;

// Runs `body` `repeat` times; returns the median seconds, or a negative value on failure.
double Time(int repeat, const std::function<bool()>& body) {
  std::vector<double> s, cpu;
  for (int i = 0; i < repeat; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    const double c0 = ThreadCpuSeconds();
    if (!body()) return -1;
    cpu.push_back(ThreadCpuSeconds() - c0);
    s.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  g_last_cpu_seconds = Median(cpu);
  return Median(s);
}

void Print(const char* analysis, const Trace& t, int repeat, double seconds, const std::string& extra) {
  const double n = static_cast<double>(t.event_count());
  std::printf("{\"bench\": \"%s\", \"events\": %llu, \"locations\": %zu, \"messages\": %zu, \"repeat\": %d, "
              "\"seconds\": %.4f, \"events_per_s\": %.0f, \"ns_per_event\": %.2f, \"cpu_seconds\": %.4f, "
              "\"events_per_cpu_s\": %.0f%s}\n",
              analysis, static_cast<unsigned long long>(t.event_count()), t.locations().size(), t.messages().size(),
              repeat, seconds, n / seconds, 1e9 * seconds / n, g_last_cpu_seconds, n / g_last_cpu_seconds, extra.c_str());
  std::fflush(stdout);
}

int Run(uint64_t events, int repeat, const std::string& only) {
  SyntheticOptions o;
  o.events = events;
  Result<Trace> trace = GenerateSyntheticTrace(o);
  if (!trace.ok()) {
    std::fprintf(stderr, "analysis_bench: %s\n", trace.status().message().c_str());
    return 1;
  }
  const Trace& t = *trace;
  const double n = static_cast<double>(t.event_count());
  char extra[256];
  if (only.empty() || only == "critpath") {
    HbGraph g(t);
    size_t state = 0;
    double sweep = Time(repeat, [&] {
      Result<ForwardSweep> f = SweepCriticalPath(g);
      if (!f.ok()) return false;
      state = f->value.capacity() * sizeof(TimeNs) + f->cause.capacity() * sizeof(Cause) +
              f->collective_argmax.capacity() * sizeof(uint32_t);
      return true;
    });
    if (sweep < 0) return 1;
    std::snprintf(extra, sizeof extra, ", \"state_bytes_per_event\": %.2f", static_cast<double>(state) / n);
    Print("critpath_sweep", t, repeat, sweep, extra);
    TimeNs length = 0;
    double full = Time(repeat, [&] {
      Result<CriticalPath> cp = ComputeCriticalPath(t);
      if (cp.ok()) length = cp->length_ns;
      return cp.ok();
    });
    if (full < 0) return 1;
    std::snprintf(extra, sizeof extra, ", \"length_ns\": %lld", static_cast<long long>(length));
    Print("critpath_full", t, repeat, full, extra);
  }
  if (only.empty() || only == "replay") {
    WhatIf w;
    w.network.kind = NetworkKind::kLatencyBandwidth;
    w.network.latency_ns = 2000;
    w.network.bytes_per_ns = 10;
    TimeNs predicted = 0, deviation = 0;
    double s = Time(repeat, [&] {
      Result<ReplayResult> r = Replay(t, w, /*check_identity=*/false);
      if (r.ok()) predicted = r->predicted_ns;
      return r.ok();
    });
    if (s < 0) return 1;
    std::snprintf(extra, sizeof extra, ", \"predicted_ns\": %lld, \"measured_ns\": %lld",
                  static_cast<long long>(predicted), static_cast<long long>(t.end_ns() - t.start_ns()));
    Print("replay_latbw", t, repeat, s, extra);
    double id = Time(repeat, [&] {
      Result<ReplayResult> r = Replay(t, WhatIf{});
      if (r.ok()) deviation = r->max_deviation_ns;
      return r.ok();
    });
    if (id < 0) return 1;
    std::snprintf(extra, sizeof extra, ", \"max_deviation_ns\": %lld", static_cast<long long>(deviation));
    Print("replay_identity", t, repeat, id, extra);
    if (deviation != 0) {
      std::fprintf(stderr, "analysis_bench: identity replay deviates by %lld ns\n", static_cast<long long>(deviation));
      return 1;
    }
  }
  if (only.empty() || only == "waits") {
    uint64_t count = 0;
    size_t sync_points = 0, classes = 0;
    double s = Time(repeat, [&] {
      const CallSites cs = FindCallSites(t);
      const WaitStates w = FindWaitStates(t, cs);
      const Characterization c = Characterize(t, cs, w);
      count = w.instances.size();
      sync_points = c.sync_points.size();
      classes = 0;
      for (const SyncPointClasses& sp : c.sync_points) classes += sp.classes.size();
      return true;
    });
    std::snprintf(extra, sizeof extra, ", \"waits\": %llu, \"sync_points\": %zu, \"classes\": %zu",
                  static_cast<unsigned long long>(count), sync_points, classes);
    Print("waits_characterize", t, repeat, s, extra);
  }
  return 0;
}

}  // namespace
}  // namespace grainscope

int main(int argc, char** argv) {
  std::vector<uint64_t> sizes = {1'000'000, 10'000'000, 100'000'000};
  int repeat = 5;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      sizes = {100'000};
      repeat = 1;
    } else if (std::strcmp(argv[i], "--events") == 0 && i + 1 < argc) {
      sizes.clear();
      for (char* p = std::strtok(argv[++i], ","); p; p = std::strtok(nullptr, ",")) sizes.push_back(std::strtoull(p, nullptr, 10));
    } else if (std::strcmp(argv[i], "--repeat") == 0 && i + 1 < argc) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (std::strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::fprintf(stderr, "usage: analysis_bench [--smoke] [--events N[,N...]] [--repeat R] [--only critpath|replay|waits]\n");
      return 2;
    }
  }
  for (uint64_t n : sizes)
    if (grainscope::Run(n, repeat, only) != 0) return 1;
  return 0;
}
