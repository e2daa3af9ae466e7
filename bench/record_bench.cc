// gs_record_bench: what recording costs, printed as one JSON object.
//
//   clock_read_ns.threads_1/2   one raw read of the clock the runtime chose (rdtsc or
//                               clock_gettime), on 1 and on 2 threads at once: the baselines
//   event_ns.threads_1/2        amortised cost of one recorded event (begin/end pairs in a loop, so
//                               block hand-over, the background flusher and zstd are included),
//                               per recording thread, with 1 and 2 threads recording at once; also
//                               uncompressed (GRAINSCOPE_COMPRESS=0: raw 16-byte records) and with
//                               the owners writing their own blocks
//   each figure three ways:     wall (elapsed per thread: includes other jobs on the machine),
//                               thread_cpu (the recording thread's CPU time), process_cpu (the
//                               process's CPU time per event: flusher, zstd and the kernel's
//                               writes included, up to the end of Close)
//   ratio_to_clock_read         event / clock read, each measured the same way with as many
//                               threads; the target is <= 1.5
//   pi_example              the seed's pi program (examples/pi_bca.h) built instrumented and with
//                           GRAINSCOPE_DISABLE, run alternately in this process: median run times
//                           and the overhead in %; the runtime's start-up is reported separately
//   message_pair_ns         one send pair (gs_send_begin + gs_send_end: the record, the on-the-fly
//                           piggyback and its mailbox post) and one receive pair (taking it back),
//                           each timed alone: the first of a fresh trace (it finds no mailbox for
//                           the name yet), the median, the largest of the others (a pair that needs
//                           more mailbox memory, or an interrupt: the median over repetitions keeps
//                           the former), and a region pair timed the same way for comparison
//   grain_event_ns          one grain event with a static descriptor (constant id), with the id
//                           given per instance (gs_grain_begin_id: ids 0, 1, ... fit one record),
//                           and with ids beyond 32 bits (a continuation slot), interleaved
//   sync_event_ns           one thread sync event (issue 21) by kind: a lock's request/acquired/
//                           release, a barrier's enter/leave, a condition signal, against a region
//                           pair, interleaved like the grain forms
//   bytes_per_event         .gst file size per event, raw and coded (the default: delta coding,
//                           zstd on top while the flusher keeps up), for a loop of regions around
//                           a little irregular work (timestamps that are not a perfect ramp)
// Every figure is the median over repetitions (min too for the micro-benchmarks): the machine is
// shared and the median is what a user would see. --smoke runs everything tiny, checks that the
// traces read back with the exact event counts, and exits non-zero if not (CI runs it).
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <set>
#include <string>
#include <utility>
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
const char* g_clock = nullptr;  // --clock tsc|tsc-ordered|monotonic (GRAINSCOPE_CLOCK); automatic by default
bool g_zstd = true;          // --delta-only: no zstd on top of the delta coding (GRAINSCOPE_COMPRESS=delta)

bool OpenTrace(const std::string& path, bool compress) {
  rec::Options o;
  o.path = path.c_str();
  o.compress = compress;
  o.zstd = g_zstd;
  o.background_flush = !g_owner_flush;
  o.signals = false;
  o.clock = g_clock;
  return rec::Open(o);
}

GS_DEFINE_REGION(g_loop, "loop body");

// CPU time of the calling thread / of the whole process, in ns. On a shared machine the wall time
// of a loop includes the time other jobs held the processor; the thread's CPU time does not, and
// the process's CPU time adds what the flusher thread and the kernel (write calls) spent for it.
double CpuNs(clockid_t clock) {
  timespec ts{};
  clock_gettime(clock, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}
double ThreadCpuNs() { return CpuNs(CLOCK_THREAD_CPUTIME_ID); }
double ProcessCpuNs() { return CpuNs(CLOCK_PROCESS_CPUTIME_ID); }

// Figures of one loop kind, per event (or per clock read), each summarised over all threads and
// repetitions: wall time per thread, CPU time of the recording thread, and the process's CPU time
// per event (recording threads + flusher + the kernel's writes, from the first event to the end
// of Close: the fully amortised cost).
struct Cost {
  Stats wall, thread_cpu, process_cpu;
};

// Runs `body(per_thread_index)` on `threads` threads started together; each returns its own
// (wall, cpu) ns per operation.
template <typename Body>
void RunThreads(int threads, Body body, std::vector<double>& wall, std::vector<double>& cpu) {
  std::atomic<int> ready{0};
  std::vector<std::pair<double, double>> out(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      body.Prepare();
      ready.fetch_add(1);
      while (ready.load() < threads) {
      }
      out[t] = body.Loop();
    });
  }
  for (auto& th : pool) th.join();
  for (const auto& [w, c] : out) {
    wall.push_back(w);
    cpu.push_back(c);
  }
}

// One raw clock read, as the runtime reads it, inlined into the loop; on `threads` threads at
// once (the baseline for the same number of recording threads).
Cost ClockRead(const Config& c, int threads) {
  struct Body {
    long reads;
    bool tsc, ordered;
    void Prepare() {}
    std::pair<double, double> Loop() {
      uint64_t sink = 0;
      const double c0 = ThreadCpuNs();
      const auto t0 = Clock::now();
      if (tsc && ordered) {
        for (long i = 0; i < reads; ++i) sink += (_mm_lfence(), __rdtsc());
      } else if (tsc) {
        for (long i = 0; i < reads; ++i) sink += __rdtsc();
      } else {
        for (long i = 0; i < reads; ++i) sink += static_cast<uint64_t>(rec::MonotonicNs());
      }
      const auto t1 = Clock::now();
      const double c1 = ThreadCpuNs();
      asm volatile("" : : "r"(sink));
      const double n = static_cast<double>(reads);
      return {Seconds(t0, t1) * 1e9 / n, (c1 - c0) / n};
    }
  };
  std::vector<double> wall, cpu;
  const bool ordered = std::strcmp(rec::ClockName(), "tsc-ordered") == 0;
  for (int r = 0; r < c.repetitions; ++r) RunThreads(threads, Body{c.pairs * 2, rec::ClockIsTsc(), ordered}, wall, cpu);
  return {Summarise(wall), Summarise(cpu), Summarise(cpu)};
}

// ns per event for `threads` threads recording at once: each thread times its own loop.
Cost EventCost(const Config& c, int threads, bool compress) {
  struct Body {
    long pairs;
    void Prepare() {
      gs_region_begin(&g_loop);  // registers the thread before the timed loop
      gs_region_end(&g_loop);
    }
    std::pair<double, double> Loop() {
      const double c0 = ThreadCpuNs();
      const auto t0 = Clock::now();
      for (long i = 0; i < pairs; ++i) {
        gs_region_begin(&g_loop);
        gs_region_end(&g_loop);
      }
      const auto t1 = Clock::now();
      const double c1 = ThreadCpuNs();
      const double n = 2.0 * static_cast<double>(pairs);
      return {Seconds(t0, t1) * 1e9 / n, (c1 - c0) / n};
    }
  };
  std::vector<double> wall, cpu, process;
  for (int r = 0; r < c.repetitions; ++r) {
    const std::string path = TracePath("events.gst");
    Check(OpenTrace(path, compress), "open trace");
    const double p0 = ProcessCpuNs();
    RunThreads(threads, Body{c.pairs}, wall, cpu);
    rec::Close();
    process.push_back((ProcessCpuNs() - p0) / (2.0 * static_cast<double>(c.pairs) * threads));
    if (c.smoke) {
      grainscope::Result<grainscope::Trace> trace = grainscope::ReadGstFile(path);
      Check(trace.ok() && trace->event_count() == static_cast<uint64_t>(threads) * 2 * (c.pairs + 1),
            "the trace holds every recorded event");
    }
    if (!g_null_sink) std::filesystem::remove(path);
  }
  return {Summarise(wall), Summarise(cpu), Summarise(process)};
}

// One grain pair (begin + end) three ways, interleaved in each repetition so that the machine's
// load hits them alike, one thread: a static descriptor (gs_region_begin/end, the id fixed at
// compile time), a grain site with the id given per instance (gs_grain_begin_id/end_id, ids
// 0, 1, 2, ...: the packed one-slot record), and the same with ids beyond 32 bits (a record plus
// a GrainSlot). ns per event, thread CPU and wall; the trace must hold every event.
GS_DEFINE_GRAIN(g_static_grain, "static grain", 1);
GS_DEFINE_GRAIN_SITE(g_grain_site, "grain site");

enum class GrainForm { kStatic, kDynamic, kDynamicWide };

struct GrainIdFigures { Cost forms[3]; };

// The smoke check of a grain trace of `form` (0 static, 1 ids, 2 ids past 32 bits): one region per
// call site (issue 33), an instance per execution with its id (Prepare's 0, then one each).
void CheckGrainTrace(const std::string& path, int form, long pairs) {
  grainscope::Result<grainscope::Trace> t = grainscope::ReadGstFile(path);
  const uint64_t n = static_cast<uint64_t>(pairs);
  Check(t.ok() && t->event_count() == 2 * (n + 2), "the grain trace holds every recorded event");
  if (!t.ok()) return;
  size_t sites = 0;
  for (const grainscope::Region& region : t->regions()) sites += t->str(region.name) == "grain site";
  const std::set<int64_t> ids(t->instances().id.begin(), t->instances().id.end());
  Check(sites == 1 && t->instances().size() == (form == 0 ? 1 : n + 1) && ids.size() == (form == 0 ? 1 : form == 1 ? n : n + 1),
        "one region per grain site, one instance per execution with its grain id");
}

GrainIdFigures GrainIdCosts(const Config& c) {
  struct Body {
    long pairs;
    GrainForm form;
    void Prepare() {
      gs_region_begin(&g_static_grain);  // registers the thread and both descriptors
      gs_region_end(&g_static_grain);
      gs_grain_begin_id(&g_grain_site, 0);
      gs_grain_end_id(&g_grain_site, 0);
    }
    std::pair<double, double> Loop() {
      const double c0 = ThreadCpuNs();
      const auto t0 = Clock::now();
      if (form == GrainForm::kStatic) {
        for (long i = 0; i < pairs; ++i) {
          gs_region_begin(&g_static_grain);
          gs_region_end(&g_static_grain);
        }
      } else {
        const int64_t base = form == GrainForm::kDynamic ? 0 : int64_t{1} << 40;
        for (long i = 0; i < pairs; ++i) {
          gs_grain_begin_id(&g_grain_site, base + i);
          gs_grain_end_id(&g_grain_site, base + i);
        }
      }
      const auto t1 = Clock::now();
      const double c1 = ThreadCpuNs();
      const double n = 2.0 * static_cast<double>(pairs);
      return {Seconds(t0, t1) * 1e9 / n, (c1 - c0) / n};
    }
  };
  std::vector<double> wall[3], cpu[3], process[3];
  for (int r = 0; r < c.repetitions; ++r) {
    for (int f = 0; f < 3; ++f) {
      const std::string path = TracePath("grains.gst");
      Check(OpenTrace(path, true), "open trace");
      const double p0 = ProcessCpuNs();
      RunThreads(1, Body{c.pairs, static_cast<GrainForm>(f)}, wall[f], cpu[f]);
      rec::Close();
      process[f].push_back((ProcessCpuNs() - p0) / (2.0 * static_cast<double>(c.pairs)));
      if (c.smoke) CheckGrainTrace(path, f, c.pairs);
      if (!g_null_sink) std::filesystem::remove(path);
    }
  }
  GrainIdFigures g;
  for (int f = 0; f < 3; ++f) g.forms[f] = {Summarise(wall[f]), Summarise(cpu[f]), Summarise(process[f])};
  return g;
}

// Threads' sync events (issue 21), one thread, interleaved like the grain forms: a lock's three
// events (gs_lock_request, gs_lock_acquired, gs_lock_release), a barrier's two (enter, leave) and a
// condition's signal, against a region pair; ns per event. Each is a record plus its SyncSlot.
enum class SyncForm { kRegion, kLock, kBarrier, kSignal };
constexpr const char* kSyncFormNames[] = {"region_pair", "lock", "barrier", "cond_signal"};

struct SyncFigures {
  Cost forms[4];
};

SyncFigures SyncCosts(const Config& c) {
  static int lock = 0, barrier = 0, cond = 0;
  struct Body {
    long pairs;
    SyncForm form;
    void Prepare() {
      gs_region_begin(&g_static_grain);  // registers the thread
      gs_region_end(&g_static_grain);
    }
    std::pair<double, double> Loop() {
      const double c0 = ThreadCpuNs();
      const auto t0 = Clock::now();
      double events = 0;
      switch (form) {
        case SyncForm::kRegion:
          for (long i = 0; i < pairs; ++i) gs_region_begin(&g_static_grain), gs_region_end(&g_static_grain);
          events = 2.0 * static_cast<double>(pairs);
          break;
        case SyncForm::kLock:
          for (long i = 0; i < pairs; ++i) gs_lock_request(&lock), gs_lock_acquired(&lock), gs_lock_release(&lock);
          events = 3.0 * static_cast<double>(pairs);
          break;
        case SyncForm::kBarrier:
          for (long i = 0; i < pairs; ++i) gs_barrier_enter(&barrier, 1), gs_barrier_leave(&barrier);
          events = 2.0 * static_cast<double>(pairs);
          break;
        case SyncForm::kSignal:
          for (long i = 0; i < pairs; ++i) gs_cond_signal(&cond);
          events = static_cast<double>(pairs);
          break;
      }
      const auto t1 = Clock::now();
      const double c1 = ThreadCpuNs();
      return {Seconds(t0, t1) * 1e9 / events, (c1 - c0) / events};
    }
  };
  constexpr uint64_t kEventsPerPair[] = {2, 3, 2, 1};
  std::vector<double> wall[4], cpu[4], process[4];
  for (int r = 0; r < c.repetitions; ++r) {
    for (int f = 0; f < 4; ++f) {
      const std::string path = TracePath("sync.gst");
      Check(OpenTrace(path, true), "open trace");
      const double p0 = ProcessCpuNs();
      RunThreads(1, Body{c.pairs, static_cast<SyncForm>(f)}, wall[f], cpu[f]);
      rec::Close();
      process[f].push_back((ProcessCpuNs() - p0) / (static_cast<double>(kEventsPerPair[f]) * static_cast<double>(c.pairs)));
      if (c.smoke) {
        grainscope::Result<grainscope::Trace> trace = grainscope::ReadGstFile(path);
        Check(trace.ok() && trace->event_count() == kEventsPerPair[f] * static_cast<uint64_t>(c.pairs) + 2,
              "the sync trace holds every recorded event");
      }
      if (!g_null_sink) std::filesystem::remove(path);
    }
  }
  SyncFigures s;
  for (int f = 0; f < 4; ++f) s.forms[f] = {Summarise(wall[f]), Summarise(cpu[f]), Summarise(process[f])};
  return s;
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
// Send and receive pairs of one thread, each timed alone with two clock reads (their own cost is
// in every figure alike; the region pair gives the baseline). Per repetition a fresh trace, so the
// first pair finds no mailbox yet.
struct MessageFigures {
  double send_first = 0, send_median = 0, send_largest = 0;
  double recv_first = 0, recv_median = 0, recv_largest = 0;
  double region_median = 0;
};

GS_DEFINE_MESSAGE(g_bench_message, "bench message");

MessageFigures MessageCosts(const Config& c) {
  constexpr int kPairs = 4096;
  std::vector<double> send_first, send_median, send_largest, recv_first, recv_median, recv_largest, region_median;
  std::vector<uint64_t> ticks(kPairs);
  const auto per_pair = [&](auto&& pair, std::vector<double>& first, std::vector<double>& median,
                            std::vector<double>* largest) {
    const Clock::time_point w0 = Clock::now();
    const uint64_t start = __rdtsc();
    for (int i = 0; i < kPairs; ++i) {
      const uint64_t t0 = __rdtsc();
      pair();
      ticks[static_cast<size_t>(i)] = __rdtsc() - t0;
    }
    const double ns_per_tick = Seconds(w0, Clock::now()) * 1e9 / static_cast<double>(__rdtsc() - start);
    first.push_back(static_cast<double>(ticks[0]) * ns_per_tick);
    std::vector<double> all;
    for (uint64_t t : ticks) all.push_back(static_cast<double>(t) * ns_per_tick);
    if (largest != nullptr) largest->push_back(*std::max_element(all.begin() + 1, all.end()));
    median.push_back(Summarise(all).median);
  };
  for (int r = 0; r < c.repetitions; ++r) {
    if (!OpenTrace("/dev/null", true)) continue;
    const uint32_t id = gs_message_id(&g_bench_message);
    per_pair([&] { gs_send_begin(id, 8, 0); gs_send_end(id); }, send_first, send_median, &send_largest);
    per_pair([&] { gs_recv_begin(id); gs_recv_end(id, 8, 0); }, recv_first, recv_median, &recv_largest);
    std::vector<double> unused;
    per_pair([&] { gs_region_begin(&g_loop); gs_region_end(&g_loop); }, unused, region_median, nullptr);
    rec::Close();
  }
  return {Summarise(send_first).median, Summarise(send_median).median, Summarise(send_largest).median,
          Summarise(recv_first).median, Summarise(recv_median).median, Summarise(recv_largest).median,
          Summarise(region_median).median};
}

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

// The command line into `c` and the globals; false (after the usage line) on an unknown option.
bool ParseOptions(int argc, char** argv, Config& c) {
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
    } else if (std::strcmp(argv[i], "--delta-only") == 0) {
      g_zstd = false;
    } else if (std::strcmp(argv[i], "--clock") == 0 && i + 1 < argc) {
      g_clock = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--smoke] [--null] [--events-only] [--delta-only] [--clock tsc|tsc-ordered|monotonic]\n", argv[0]);
      return false;
    }
  }
  return true;
}

// The clock reads and the event costs, on 1 and on 2 threads (ratio_to_clock_read divides them).
struct EventCosts {
  Cost one, clock, two, clock_two, one_raw, two_raw, one_owner, two_owner;
};

// `"key": {"name": {wall, thread_cpu, process_cpu}, ...},` a row a line.
void PrintCosts(const char* key, std::initializer_list<std::pair<const char*, const Cost&>> rows) {
  std::printf("  \"%s\": {\n", key);
  size_t i = 0;
  for (const auto& [name, k] : rows) {
    std::printf("    \"%s\": {\"wall\": {\"median\": %.2f, \"min\": %.2f}, \"thread_cpu\": {\"median\": %.2f, "
                "\"min\": %.2f}, \"process_cpu\": {\"median\": %.2f, \"min\": %.2f}}%s\n",
                name, k.wall.median, k.wall.min, k.thread_cpu.median, k.thread_cpu.min, k.process_cpu.median,
                k.process_cpu.min, ++i == rows.size() ? "" : ",");
  }
  std::printf("  },\n");
}

void PrintEventCosts(const EventCosts& e) {
  PrintCosts("clock_read_ns", {{"threads_1", e.clock}, {"threads_2", e.clock_two}});
  PrintCosts("event_ns", {{"threads_1", e.one}, {"threads_2", e.two}, {"threads_1_uncompressed", e.one_raw},
                          {"threads_2_uncompressed", e.two_raw}, {"threads_1_owner_flush", e.one_owner},
                          {"threads_2_owner_flush", e.two_owner}});
  // thread_cpu: what the recording thread itself pays (hot path and its share of block hand-over
  // and owner writes); process_cpu: everything, flusher and kernel included; wall: what a user
  // sees on this machine today, other jobs included. Each against the clock read measured the
  // same way with as many threads.
  std::printf("  \"ratio_to_clock_read\": {\"thread_cpu\": {\"threads_1\": %.2f, \"threads_2\": %.2f}, "
              "\"process_cpu\": {\"threads_1\": %.2f, \"threads_2\": %.2f, \"threads_2_uncompressed\": %.2f}, "
              "\"wall\": {\"threads_1\": %.2f, \"threads_2\": %.2f}, \"target\": 1.5},\n",
              e.one.thread_cpu.median / e.clock.thread_cpu.median, e.two.thread_cpu.median / e.clock_two.thread_cpu.median,
              e.one.process_cpu.median / e.clock.thread_cpu.median, e.two.process_cpu.median / e.clock_two.thread_cpu.median,
              e.two_raw.process_cpu.median / e.clock_two.thread_cpu.median,
              e.one.wall.median / e.clock.wall.median, e.two.wall.median / e.clock_two.wall.median);
}

}  // namespace

int main(int argc, char** argv) {
  Config c;
  if (!ParseOptions(argc, argv, c)) return 2;
  char templ[] = "/tmp/gs_record_bench.XXXXXX";
  if (mkdtemp(templ) == nullptr) return 1;
  g_dir = templ;
  // The first Open chooses the clock; measure its read after that. The clock baselines run
  // between the event loops so that load changes on the machine hit both alike.
  EventCosts e;
  e.one = EventCost(c, 1, true);
  e.clock = ClockRead(c, 1);
  e.two = EventCost(c, 2, true);
  e.clock_two = ClockRead(c, 2);
  const GrainIdFigures grain_ids = GrainIdCosts(c);
  const SyncFigures syncs = SyncCosts(c);
  e.one_raw = EventCost(c, 1, false);
  e.two_raw = EventCost(c, 2, false);
  g_owner_flush = true;
  e.one_owner = EventCost(c, 1, false);
  e.two_owner = EventCost(c, 2, false);
  g_owner_flush = false;
  g_null_sink = false;
  const PiFigures pi = g_events_only ? PiFigures{} : PiOverhead(c);
  const MessageFigures msg = MessageCosts(c);
  const double raw_bytes = g_events_only ? 0 : BytesPerEvent(c, false);
  const double coded_bytes = g_events_only ? 0 : BytesPerEvent(c, true);
  std::filesystem::remove_all(g_dir);

  std::printf("{\n");
  std::printf("  \"mode\": \"%s\",\n", c.smoke ? "smoke" : "full");
  std::printf("  \"clock\": \"%s\",\n", rec::ClockName());
  std::printf("  \"hardware_threads\": %u,\n", std::thread::hardware_concurrency());
  std::printf("  \"repetitions\": %d,\n  \"pairs_per_repetition\": %ld,\n", c.repetitions, c.pairs);
  PrintEventCosts(e);
  PrintCosts("grain_event_ns", {{"static_descriptor", grain_ids.forms[0]}, {"id_per_instance", grain_ids.forms[1]},
                                {"id_per_instance_beyond_32_bits", grain_ids.forms[2]}});
  PrintCosts("sync_event_ns", {{kSyncFormNames[0], syncs.forms[0]}, {kSyncFormNames[1], syncs.forms[1]},
                               {kSyncFormNames[2], syncs.forms[2]}, {kSyncFormNames[3], syncs.forms[3]}});
  std::printf("  \"startup_calibrated_overhead_per_event_ns\": %.2f,\n", rec::OverheadPerEventNs());
  std::printf("  \"pi_example\": {\"runs\": %d, \"instrumented_ms\": %.4f, \"uninstrumented_ms\": %.4f, "
              "\"overhead_percent\": %.2f, \"events_per_run\": %llu, \"runtime_startup_ms\": %.3f},\n",
              c.pi_runs, pi.instrumented_ms, pi.plain_ms, pi.overhead_percent,
              static_cast<unsigned long long>(pi.events_per_run), pi.startup_ms);
  std::printf("  \"message_pair_ns\": {\"send\": {\"first\": %.0f, \"median\": %.1f, \"largest_other\": %.0f}, "
              "\"receive\": {\"first\": %.0f, \"median\": %.1f, \"largest_other\": %.0f}, \"region_pair_median\": %.1f},\n",
              msg.send_first, msg.send_median, msg.send_largest, msg.recv_first, msg.recv_median, msg.recv_largest,
              msg.region_median);
  std::printf("  \"bytes_per_event\": {\"raw\": %.2f, \"coded\": %.2f},\n", raw_bytes, coded_bytes);
  std::printf("  \"checks_passed\": %s\n}\n", g_ok ? "true" : "false");
  return g_ok ? 0 : 1;
}
