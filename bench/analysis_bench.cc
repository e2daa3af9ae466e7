// Throughput and memory of the analyses on synthetic traces (bench/synthetic), one JSON object
// per analysis and trace size. Targets: critical-path sweep >= 30 M events/s with <= 16 bytes
// of state per event (issue 5); latency+bandwidth replay >= 20 M events/s (issue 6); wait states
// + characterisation >= 10 M events/s with at most the loaded trace's memory again (issue 8).
// "trace_index_build" times the shared call-nesting index (model/trace_index.h) the analyses
// build on first use: the other lines' medians run with it already built.
//
// The waits lines come with their baseline from the same run: loading the same trace from OTF2
// ("load_otf2": time, and the heap the loaded Trace holds). Heap figures count every byte
// allocated through operator new in this process (the replacement below), so "peak_bytes" is
// the analysis's own high-water mark above what was live before it started.
//
//   analysis_bench [--smoke] [--events N[,N...]] [--repeat R] [--only index|critpath|replay|waits]
// Times are medians over R runs on one core; the trace is generated once per size.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <new>
#include <string>
#include <vector>

#include <malloc.h>
#include <unistd.h>

#include "analysis/critpath/critpath.h"
#include "analysis/replay/replay.h"
#include "analysis/waits/characterize.h"
#include "bench/bench_clock.h"
#include "bench/synthetic/synthetic_trace.h"
#include "format/otf2/otf2_writer.h"
#include "format/trace_reader.h"
#include "model/trace_index.h"

// Heap accounting: live bytes and their high-water mark (single-threaded benchmark).
namespace {
size_t g_live_bytes = 0;
size_t g_peak_bytes = 0;
}  // namespace

void* operator new(size_t n) {
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  g_live_bytes += malloc_usable_size(p);
  g_peak_bytes = std::max(g_peak_bytes, g_live_bytes);
  return p;
}
void operator delete(void* p) noexcept {
  if (p == nullptr) return;
  g_live_bytes -= malloc_usable_size(p);
  std::free(p);
}
void operator delete(void* p, size_t) noexcept { operator delete(p); }

namespace grainscope {
namespace {

using bench::Median;
using bench::ThreadCpuSeconds;

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

// FNV-1a over everything the waits analysis reports: equal digests before and after a change
// mean the optimisation did not change a result.
class Digest {
 public:
  template <typename T>
  void Add(const T& v) {
    const unsigned char* p = reinterpret_cast<const unsigned char*>(&v);
    for (size_t i = 0; i < sizeof(T); ++i) h_ = (h_ ^ p[i]) * 1099511628211ULL;
  }
  uint64_t value() const { return h_; }

 private:
  uint64_t h_ = 14695981039346656037ULL;
};

uint64_t DigestOf(const WaitStates& w, const Characterization& c) {
  Digest d;
  for (const WaitInstance& i : w.instances) {
    d.Add(i.kind), d.Add(i.waiter.value), d.Add(i.late.value), d.Add(i.start_ns), d.Add(i.wait_ns);
    d.Add(i.sync_point);
  }
  d.Add(c.characterized);
  for (const SyncPointClasses& sp : c.sync_points) {
    d.Add(sp.sync_point), d.Add(sp.wait_ns), d.Add(sp.count);
    for (const WaitClass& wc : sp.classes) {
      d.Add(wc.count), d.Add(wc.wait_ns);
      for (const Step& st : wc.steps) d.Add(st.region.value), d.Add(st.state), d.Add(st.ns);
      for (double share : wc.shares) d.Add(share);
    }
  }
  for (const RegionDelay& r : c.root_causes) d.Add(r.region.value), d.Add(r.delay_ns);
  return d.value();
}

// Load time and heap of the same trace read back from OTF2: the baseline of the waits figures.
bool BenchLoad(const Trace& t, int repeat, size_t& trace_bytes) {
  const std::string dir = (std::filesystem::temp_directory_path() / ("gs_analysis_bench_" + std::to_string(getpid()))).string();
  if (Status s = WriteOtf2(t, dir + "/trace.otf2"); !s.ok()) {
    std::fprintf(stderr, "analysis_bench: %s\n", s.message().c_str());
    return false;
  }
  double s = Time(repeat, [&] {
    const size_t before = g_live_bytes;
    Result<Trace> loaded = ReadTrace(dir + "/trace.otf2");
    trace_bytes = g_live_bytes - before;
    return loaded.ok() && loaded->event_count() == t.event_count();
  });
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  if (s < 0) return false;
  char extra[128];
  std::snprintf(extra, sizeof extra, ", \"trace_bytes_per_event\": %.2f",
                static_cast<double>(trace_bytes) / static_cast<double>(t.event_count()));
  Print("load_otf2", t, repeat, s, extra);
  return true;
}

// Wait states alone, the characterisation alone (on precomputed wait states) and both, each
// with its peak heap above what was live before it (bytes per event, and as a fraction of the
// loaded trace's heap).
bool BenchWaits(const Trace& t, int repeat) {
  size_t trace_bytes = 0;
  if (!BenchLoad(t, repeat, trace_bytes)) return false;
  const double n = static_cast<double>(t.event_count());
  size_t peak = 0;
  // `reset` frees the previous run's results first, so the peak counts only this run.
  auto measured = [&](const std::function<void()>& reset, const std::function<void()>& body) {
    return Time(repeat, [&] {
      reset();
      const size_t base = g_live_bytes;
      g_peak_bytes = base;
      body();
      peak = g_peak_bytes - base;
      return true;
    });
  };
  auto print = [&](const char* name, double s, const std::string& more) {
    char extra[256];
    std::snprintf(extra, sizeof extra, ", \"peak_bytes_per_event\": %.2f, \"peak_vs_trace\": %.3f%s",
                  static_cast<double>(peak) / n, static_cast<double>(peak) / static_cast<double>(trace_bytes),
                  more.c_str());
    Print(name, t, repeat, s, extra);
  };

  WaitStates w;
  CallSites cs;
  print("waits_states", measured([&] { cs = CallSites(), w = WaitStates(); },
                                 [&] {
          cs = FindCallSites(t);
          w = FindWaitStates(t, cs);
        }),
        "");
  Characterization c;
  print("waits_characterize_only", measured([&] { c = Characterization(); },
                                            [&] {
          c = Characterize(t, cs, w);
        }),
        "");
  cs = CallSites();
  w = WaitStates();
  c = Characterization();
  uint64_t digest = 0;
  size_t sync_points = 0, classes = 0, count = 0;
  const double both = measured([] {}, [&] {
    const CallSites calls = FindCallSites(t);
    const WaitStates waits = FindWaitStates(t, calls);
    const Characterization why = Characterize(t, calls, waits);
    count = waits.instances.size();
    sync_points = why.sync_points.size();
    classes = 0;
    for (const SyncPointClasses& sp : why.sync_points) classes += sp.classes.size();
    digest = DigestOf(waits, why);
  });
  char more[256];
  std::snprintf(more, sizeof more, ", \"waits\": %zu, \"sync_points\": %zu, \"classes\": %zu, \"digest\": \"%016llx\"",
                count, sync_points, classes, static_cast<unsigned long long>(digest));
  print("waits_characterize", both, more);
  return true;
}

// The shared call-nesting index alone (the other analyses find it built).
void BenchIndex(const Trace& t, int repeat) {
  size_t bytes = 0;
  const double s = Time(repeat, [&] {
    bytes = TraceIndex::Build(t).bytes();
    return true;
  });
  char extra[256];
  std::snprintf(extra, sizeof extra, ", \"index_bytes_per_event\": %.2f",
                static_cast<double>(bytes) / static_cast<double>(t.event_count()));
  Print("trace_index_build", t, repeat, s, extra);
}

// The forward sweep alone, with its state per event, then the whole critical path.
bool BenchCritPath(const Trace& t, int repeat) {
  char extra[256];
  HbGraph g(t);
  size_t state = 0;
  double sweep = Time(repeat, [&] {
    Result<ForwardSweep> f = SweepCriticalPath(g);
    if (!f.ok()) return false;
    state = f->value.capacity() * sizeof(TimeNs) + f->cause.capacity() * sizeof(Cause) +
            f->collective_argmax.capacity() * sizeof(uint32_t);
    return true;
  });
  if (sweep < 0) return false;
  std::snprintf(extra, sizeof extra, ", \"state_bytes_per_event\": %.2f",
                static_cast<double>(state) / static_cast<double>(t.event_count()));
  Print("critpath_sweep", t, repeat, sweep, extra);
  TimeNs length = 0;
  double full = Time(repeat, [&] {
    Result<CriticalPath> cp = ComputeCriticalPath(t);
    if (cp.ok()) length = cp->length_ns;
    return cp.ok();
  });
  if (full < 0) return false;
  std::snprintf(extra, sizeof extra, ", \"length_ns\": %lld", static_cast<long long>(length));
  Print("critpath_full", t, repeat, full, extra);
  return true;
}

// A latency+bandwidth what-if replay, then the identity replay, which must reproduce the trace
// exactly (a deviation fails the benchmark: the model lost an edge).
bool BenchReplay(const Trace& t, int repeat) {
  char extra[256];
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
  if (s < 0) return false;
  std::snprintf(extra, sizeof extra, ", \"predicted_ns\": %lld, \"measured_ns\": %lld",
                static_cast<long long>(predicted), static_cast<long long>(t.end_ns() - t.start_ns()));
  Print("replay_latbw", t, repeat, s, extra);
  double id = Time(repeat, [&] {
    Result<ReplayResult> r = Replay(t, WhatIf{});
    if (r.ok()) deviation = r->max_deviation_ns;
    return r.ok();
  });
  if (id < 0) return false;
  std::snprintf(extra, sizeof extra, ", \"max_deviation_ns\": %lld", static_cast<long long>(deviation));
  Print("replay_identity", t, repeat, id, extra);
  if (deviation != 0) {
    std::fprintf(stderr, "analysis_bench: identity replay deviates by %lld ns\n", static_cast<long long>(deviation));
    return false;
  }
  return true;
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
  if (only.empty() || only == "index") BenchIndex(t, repeat);
  if ((only.empty() || only == "critpath") && !BenchCritPath(t, repeat)) return 1;
  if ((only.empty() || only == "replay") && !BenchReplay(t, repeat)) return 1;
  if ((only.empty() || only == "waits") && !BenchWaits(t, repeat)) return 1;
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
      std::fprintf(stderr, "usage: analysis_bench [--smoke] [--events N[,N...]] [--repeat R] [--only index|critpath|replay|waits]\n");
      return 2;
    }
  }
  for (uint64_t n : sizes)
    if (grainscope::Run(n, repeat, only) != 0) return 1;
  return 0;
}
