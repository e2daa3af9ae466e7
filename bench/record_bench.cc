// gs_record_bench: what recording costs, printed as one JSON object.
//
//   clock_read_ns           one raw read of the clock the runtime chose (rdtsc or clock_gettime)
//   event_ns.threads_1/2    amortised cost of one recorded event (begin/end pairs in a loop, so
//                           block hand-over, the background flusher and zstd are included), per
//                           recording thread, with 1 and 2 threads recording at once
//   ratio_to_clock_read     event_ns / clock_read_ns; the target is <= 1.5
//   pi_example              the seed's pi program (examples/pi_bca.h) built instrumented and with
//                           GRAINSCOPE_DISABLE, run alternately in this process: median run times
//                           and the overhead in %; the runtime's start-up is reported separately
//   bytes_per_event         .gst file size per event, raw and zstd, for a loop of regions around
//                           a little irregular work (timestamps that are not a perfect ramp)
// Every figure is the median over repetitions (min too for the micro-benchmarks): the machine is
// shared and the median is what a user would see. --smoke runs everything tiny, checks that the
// traces read back with the exact event counts, and exits non-zero if not (CI runs it).
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "format/gst/gst_reader.h"
#include "grainscope/trace.h"
#include <x86intrin.h>

#include "record/clock.h"
#include "record/runtime.h"

#define PI_BCA_NAMESPACE pi_bca
#include "pi_bca.h"
#undef PI_BCA_NAMESPACE
#define PI_BCA_NAMESPACE pi_plain
#include "pi_bca.h"
#undef PI_BCA_NAMESPACE

namespace {

using Clock = std::chrono::steady_clock;
namespace rec = grainscope::record;

struct Config {
  bool smoke = false;
  int repetitions = 9;
  long pairs = 500'000;      // begin/end pairs per repetition and thread
  int pi_runs = 41;
  long size_pairs = 200'000;
};

struct Stats {
  double median = 0, min = 0;
};

Stats Summarise(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front()};
}

double Seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

std::string g_dir;
bool g_ok = true;
bool g_events_only = false;  // --events-only: skip the pi and size measurements

void Check(bool condition, const char* what) {
  if (!condition) {
    std::fprintf(stderr, "gs_record_bench: check failed: %s\n", what);
    g_ok = false;
  }
}

bool g_null_sink = false;  // --null: write the event traces to /dev/null (isolates disk cost)

std::string TracePath(const char* name) { return g_null_sink ? "/dev/null" : g_dir + "/" + name; }

bool g_owner_flush = false;  // no background flusher: each thread writes its own blocks

bool OpenTrace(const std::string& path, bool compress) {
  rec::Options o;
  o.path = path.c_str();
  o.compress = compress;
  o.background_flush = !g_owner_flush;
  o.signals = false;
  return rec::Open(o);
}

GS_DEFINE_REGION(g_loop, "loop body");

// One raw clock read, as the runtime reads it, inlined into the loop.
Stats ClockRead(const Config& c) {
  std::vector<double> ns;
  const long reads = c.pairs * 2;
  const bool tsc = rec::ClockIsTsc();
  for (int r = 0; r < c.repetitions; ++r) {
    uint64_t sink = 0;
    const auto t0 = Clock::now();
    if (tsc) {
      for (long i = 0; i < reads; ++i) sink += __rdtsc();
    } else {
      for (long i = 0; i < reads; ++i) sink += static_cast<uint64_t>(rec::MonotonicNs());
    }
    const auto t1 = Clock::now();
    asm volatile("" : : "r"(sink));
    ns.push_back(Seconds(t0, t1) * 1e9 / static_cast<double>(reads));
  }
  return Summarise(ns);
}

// ns per event for `threads` threads recording at once: each thread times its own loop.
Stats EventCost(const Config& c, int threads, bool compress) {
  std::vector<double> ns;
  for (int r = 0; r < c.repetitions; ++r) {
    const std::string path = TracePath("events.gst");
    Check(OpenTrace(path, compress), "open trace");
    std::vector<double> per_thread(threads);
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        gs_region_begin(&g_loop);  // registers the thread before the timed loop
        gs_region_end(&g_loop);
        const auto t0 = Clock::now();
        for (long i = 0; i < c.pairs; ++i) {
          gs_region_begin(&g_loop);
          gs_region_end(&g_loop);
        }
        per_thread[t] = Seconds(t0, Clock::now()) * 1e9 / (2.0 * static_cast<double>(c.pairs));
      });
    }
    for (auto& th : pool) th.join();
    rec::Close();
    for (double v : per_thread) ns.push_back(v);
    if (c.smoke) {
      grainscope::Result<grainscope::Trace> trace = grainscope::ReadGstFile(path);
      Check(trace.ok() && trace->event_count() == static_cast<uint64_t>(threads) * 2 * (c.pairs + 1),
            "the trace holds every recorded event");
    }
    if (!g_null_sink) std::filesystem::remove(path);
  }
  return Summarise(ns);
}

struct PiFigures {
  double instrumented_ms = 0, plain_ms = 0, overhead_percent = 0, startup_ms = 0;
  uint64_t events_per_run = 0;
};

PiFigures PiOverhead(const Config& c) {
  PiFigures f;
  const std::string path = TracePath("pi.gst");
  const auto s0 = Clock::now();
  Check(OpenTrace(path, true), "open trace");
  f.startup_ms = Seconds(s0, Clock::now()) * 1e3;
  pi_bca::Options io;
  pi_plain::Options po;
  std::vector<double> inst, plain;
  for (int r = 0; r < c.pi_runs; ++r) {  // alternate, so load changes hit both alike
    const double a = pi_bca::Run(io).seconds, b = pi_plain::Run(po).seconds;
    inst.push_back(a * 1e3);
    plain.push_back(b * 1e3);
  }
  rec::Close();
  grainscope::Result<grainscope::Trace> trace = grainscope::ReadGstFile(path);
  Check(trace.ok(), "pi trace reads back");
  if (trace.ok()) f.events_per_run = trace->event_count() / static_cast<uint64_t>(c.pi_runs);
  std::filesystem::remove(path);
  f.instrumented_ms = Summarise(inst).median;
  f.plain_ms = Summarise(plain).median;
  f.overhead_percent = (f.instrumented_ms - f.plain_ms) / f.plain_ms * 100.0;
  return f;
}

// Bytes per event: regions of four kinds around a little irregular work, a marker now and then.
double BytesPerEvent(const Config& c, bool compress) {
  static gs_region regions[4] = {GS_REGION_INIT("a", GS_ROLE_FUNCTION, GS_NO_EXTERNAL_ID),
                                 GS_REGION_INIT("b", GS_ROLE_FUNCTION, GS_NO_EXTERNAL_ID),
                                 GS_REGION_INIT("c", GS_ROLE_GRAIN, 1), GS_REGION_INIT("d", GS_ROLE_GRAIN, 2)};
  const std::string path = TracePath("size.gst");
  Check(OpenTrace(path, compress), "open trace");
  uint32_t x = 12345;
  volatile double sink = 0;
  uint64_t events = 0;
  const uint32_t label = gs_intern("tick");
  for (long i = 0; i < c.size_pairs; ++i) {
    x = x * 1664525u + 1013904223u;
    gs_region_begin(&regions[x >> 30]);
    for (uint32_t k = 0; k < ((x >> 8) & 63); ++k) sink = sink + k * 0.5;
    gs_region_end(&regions[x >> 30]);
    events += 2;
    if (i % 100 == 0) {
      gs_marker(label);
      ++events;
    }
  }
  rec::Close();
  const double bytes = static_cast<double>(std::filesystem::file_size(path));
  if (c.smoke) {
    grainscope::Result<grainscope::Trace> trace = grainscope::ReadGstFile(path);
    Check(trace.ok() && trace->event_count() == events, "size trace holds every event");
  }
  std::filesystem::remove(path);
  return bytes / static_cast<double>(events);
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) {
      c.smoke = true;
      c.repetitions = 1;
      c.pairs = 20'000;
      c.pi_runs = 3;
      c.size_pairs = 20'000;
    } else if (std::strcmp(argv[i], "--null") == 0) {
      g_null_sink = true;
    } else if (std::strcmp(argv[i], "--events-only") == 0) {
      g_events_only = true;
    } else {
      std::fprintf(stderr, "usage: %s [--smoke] [--null] [--events-only]\n", argv[0]);
      return 2;
    }
  }
  char templ[] = "/tmp/gs_record_bench.XXXXXX";
  if (mkdtemp(templ) == nullptr) return 1;
  g_dir = templ;

  // The first Open chooses the clock; measure its read after that.
  const Stats one = EventCost(c, 1, true);
  const Stats clock = ClockRead(c);
  const Stats two = EventCost(c, 2, true);
  const Stats one_raw = EventCost(c, 1, false);
  g_owner_flush = true;
  const Stats one_owner = EventCost(c, 1, false);
  const Stats two_owner = EventCost(c, 2, false);
  g_owner_flush = false;
  g_null_sink = false;
  const PiFigures pi = g_events_only ? PiFigures{} : PiOverhead(c);
  const double raw_bytes = g_events_only ? 0 : BytesPerEvent(c, false);
  const double zstd_bytes = g_events_only ? 0 : BytesPerEvent(c, true);
  std::filesystem::remove_all(g_dir);

  std::printf("{\n");
  std::printf("  \"mode\": \"%s\",\n", c.smoke ? "smoke" : "full");
  std::printf("  \"clock\": \"%s\",\n", rec::ClockIsTsc() ? "tsc" : "monotonic");
  std::printf("  \"hardware_threads\": %u,\n", std::thread::hardware_concurrency());
  std::printf("  \"repetitions\": %d,\n  \"pairs_per_repetition\": %ld,\n", c.repetitions, c.pairs);
  std::printf("  \"clock_read_ns\": {\"median\": %.2f, \"min\": %.2f},\n", clock.median, clock.min);
  std::printf("  \"event_ns\": {\n");
  std::printf("    \"threads_1\": {\"median\": %.2f, \"min\": %.2f},\n", one.median, one.min);
  std::printf("    \"threads_2\": {\"median\": %.2f, \"min\": %.2f},\n", two.median, two.min);
  std::printf("    \"threads_1_uncompressed\": {\"median\": %.2f, \"min\": %.2f},\n", one_raw.median, one_raw.min);
  std::printf("    \"threads_1_owner_flush\": {\"median\": %.2f, \"min\": %.2f},\n", one_owner.median, one_owner.min);
  std::printf("    \"threads_2_owner_flush\": {\"median\": %.2f, \"min\": %.2f}\n  },\n", two_owner.median, two_owner.min);
  std::printf("  \"ratio_to_clock_read\": {\"threads_1\": %.2f, \"threads_2\": %.2f, \"target\": 1.5},\n",
              one.median / clock.median, two.median / clock.median);
  std::printf("  \"startup_calibrated_overhead_per_event_ns\": %.2f,\n", rec::OverheadPerEventNs());
  std::printf("  \"pi_example\": {\"runs\": %d, \"instrumented_ms\": %.4f, \"uninstrumented_ms\": %.4f, "
              "\"overhead_percent\": %.2f, \"events_per_run\": %llu, \"runtime_startup_ms\": %.3f},\n",
              c.pi_runs, pi.instrumented_ms, pi.plain_ms, pi.overhead_percent,
              static_cast<unsigned long long>(pi.events_per_run), pi.startup_ms);
  std::printf("  \"bytes_per_event\": {\"raw\": %.2f, \"zstd\": %.2f},\n", raw_bytes, zstd_bytes);
  std::printf("  \"checks_passed\": %s\n}\n", g_ok ? "true" : "false");
  return g_ok ? 0 : 1;
}
