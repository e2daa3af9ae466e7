#include "record/runtime.h"

#include <limits.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "grainscope/trace.h"
#include "model/metadata_keys.h"
#include "record/calibration.h"
#include "record/clock.h"
#include "record/crash.h"
#include "record/flusher.h"
#include "record/onthefly.h"
#include "record/registry.h"
#include "record/stream.h"

namespace grainscope::record {

std::atomic<uint32_t> g_state{kUninitialized};
std::atomic<uint32_t> g_generation{0};
Sink g_sink;
Options g_options;
std::atomic<uint64_t> g_dropped_events{0};
double g_nominal_ticks_per_ns = 1.0;

namespace {

pthread_mutex_t g_control_mutex = PTHREAD_MUTEX_INITIALIZER;
char g_path[PATH_MAX];
double g_overhead_ns = 0;
gst::ClockSample g_first_sample{};  // the trace's first clock sample (the reader's time base)
std::atomic<int64_t> g_seed_origin_ns{0};
bool g_process_hooks_installed = false;

bool EnvFlag(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (v == nullptr || *v == '\0') return fallback;
  return !(std::strcmp(v, "0") == 0 || std::strcmp(v, "off") == 0 || std::strcmp(v, "no") == 0 ||
           std::strcmp(v, "false") == 0);
}

// glibc (errno.h, _GNU_SOURCE): the basename of argv[0].
const char* ProgramName() {
  return program_invocation_short_name != nullptr && *program_invocation_short_name != '\0'
             ? program_invocation_short_name
             : "program";
}

// GRAINSCOPE_TRACE, or ./grainscope-<program>-<pid>.gst; a directory gets the default name inside.
void ChoosePath(const char* requested, char* out, size_t size) {
  char name[NAME_MAX];
  std::snprintf(name, sizeof name, "grainscope-%s-%ld.gst", ProgramName(), static_cast<long>(getpid()));
  struct stat st {};
  if (requested == nullptr || *requested == '\0') {
    std::snprintf(out, size, "%s", name);
  } else if (stat(requested, &st) == 0 && S_ISDIR(st.st_mode)) {
    std::snprintf(out, size, "%s/%s", requested, name);
  } else {
    std::snprintf(out, size, "%s", requested);
  }
}

// Metadata chunk payload builder: (u32 size, bytes) pairs, in a fixed buffer.
class MetadataWriter {
 public:
  void Add(const char* key, const char* value) {
    Put(key);
    Put(value);
  }
  void AddNumber(const char* key, double value, const char* format) {
    char text[64];
    std::snprintf(text, sizeof text, format, value);
    Add(key, text);
  }
  void Write() {
    LockDefinitions();
    WriteSmallChunk(gst::kChunkMetadata, 0, buffer_, size_);
    UnlockDefinitions();
  }

 private:
  void Put(const char* s) {
    uint32_t n = static_cast<uint32_t>(std::strlen(s));
    if (n > 4000) n = 4000;
    if (size_ + 4 + n > sizeof buffer_) return;
    std::memcpy(buffer_ + size_, &n, 4);
    std::memcpy(buffer_ + size_ + 4, s, n);
    size_ += 4 + n;
  }
  unsigned char buffer_[16384];
  uint32_t size_ = 0;
};

void ReadCommandLine(char* out, size_t size) {
  out[0] = '\0';
  FILE* f = std::fopen("/proc/self/cmdline", "re");
  if (f == nullptr) return;
  size_t n = std::fread(out, 1, size - 1, f);
  std::fclose(f);
  for (size_t i = 0; i + 1 < n; ++i)
    if (out[i] == '\0') out[i] = ' ';
  out[n] = '\0';
}

void OnExit() { Close(); }

void OnForkChild() {
  // The child shares the parent's file descriptor but not its threads or offsets: it records
  // nothing (docs/recording.md).
  g_state.store(kDisabled, std::memory_order_release);
  t_stream = &g_null_stream;
}

void InstallProcessHooks() {
  if (g_process_hooks_installed) return;
  g_process_hooks_installed = true;
  InitThreadExitHook();
  std::atexit(OnExit);
  std::at_quick_exit(OnExit);
  pthread_atfork(nullptr, nullptr, OnForkChild);
}

void WriteEnd(gst::EndReason reason, int signal, bool in_crash_handler);

// ns per raw tick as the .gst reader converts (gst_reader.cc ClockConverter): the line through
// the first and the last clock sample when the run lasted 1 ms or more, else the nominal rate.
double NsPerTick(const gst::ClockSample& first, const gst::ClockSample& last) {
  if (first.clock != gst::kClockTsc) return 1.0;
  const int64_t span_ns = last.monotonic_ns - first.monotonic_ns;
  if (span_ns >= 1'000'000 && last.raw > first.raw) return static_cast<double>(span_ns) / static_cast<double>(last.raw - first.raw);
  return first.nominal_ticks_per_ns > 0 ? 1.0 / first.nominal_ticks_per_ns : 1.0;
}

// The on-the-fly results (record/onthefly.h), as a second metadata chunk.
void WriteOnTheFlyResults(const gst::ClockSample& last) {
  AnalysisClose(NsPerTick(g_first_sample, last), g_options.report && OnTheFlyPublished());
  if (!OnTheFlyPublished()) return;
  const OnTheFlyTotals t = LastOnTheFlyTotals();
  MetadataWriter meta;
  meta.AddNumber(metadata::kOnTheFlyCriticalPathNs, static_cast<double>(t.critical_path_ns), "%.0f");
  meta.AddNumber(metadata::kOnTheFlyMeasuredNs, static_cast<double>(t.measured_ns), "%.0f");
  meta.AddNumber(metadata::kOnTheFlyCompensatedNs, static_cast<double>(t.compensated_ns), "%.0f");
  meta.AddNumber(metadata::kOnTheFlyUnmatchedReceives, static_cast<double>(t.unmatched_receives), "%.0f");
  meta.Write();
}

}  // namespace

Options OptionsFromEnvironment() {
  Options o;
  o.path = std::getenv("GRAINSCOPE_TRACE");
  o.enable = EnvFlag("GRAINSCOPE_ENABLE", true);
  o.compress = EnvFlag("GRAINSCOPE_COMPRESS", true);
  const char* compress = std::getenv("GRAINSCOPE_COMPRESS");
  o.zstd = o.compress && !(compress != nullptr && std::strcmp(compress, "delta") == 0);
  o.signals = EnvFlag("GRAINSCOPE_SIGNALS", true);
  const char* flush = std::getenv("GRAINSCOPE_FLUSH");
  o.background_flush = !(flush != nullptr && std::strcmp(flush, "owner") == 0);
  if (const char* kb = std::getenv("GRAINSCOPE_BUFFER_KB"); kb != nullptr && std::atoi(kb) > 0)
    o.buffer_kib = static_cast<uint32_t>(std::atoi(kb));
  o.clock = std::getenv("GRAINSCOPE_CLOCK");
  if (const char* t = std::getenv("GRAINSCOPE_SEED_TEXT"); t != nullptr && *t != '\0' && std::strcmp(t, "0") != 0)
    o.seed_text = std::strcmp(t, "precise") == 0 ? SeedText::kPrecise : SeedText::kMilliseconds;
  o.report = EnvFlag("GRAINSCOPE_REPORT", false);
  return o;
}

namespace {

// The first clock sample, the overhead calibration, a second sample: the calibration loop is
// the interval over which the start-up estimate of the TSC rate is taken.
void CalibrateClock(const ClockChoice& clock) {
  const gst::ClockSample first = SampleClock(1.0);
  const double overhead_ticks = CalibrateOverheadTicks();
  const int64_t spin_until = MonotonicNs() + 200'000;  // at least 0.2 ms between the samples
  while (MonotonicNs() < spin_until) {
  }
  const gst::ClockSample second = SampleClock(1.0);
  g_nominal_ticks_per_ns = clock.tsc && second.monotonic_ns > first.monotonic_ns
                               ? static_cast<double>(second.raw - first.raw) /
                                     static_cast<double>(second.monotonic_ns - first.monotonic_ns)
                               : 1.0;
  g_overhead_ns = overhead_ticks / g_nominal_ticks_per_ns;
  // The file's clock starts at the second sample, taken after the calibration. (The trace's
  // time zero is later still: the reader puts it at the program's first event, or at
  // initialize_clock(), so no start-up work counts as idle time of the program's processors.)
  g_first_sample = second;
  g_first_sample.nominal_ticks_per_ns = g_nominal_ticks_per_ns;
  AnalysisOpen(g_overhead_ns, g_nominal_ticks_per_ns);
}

// The trace's metadata chunk at open: the program, its host and command line, the clock and the
// calibration, the compression.
void WriteStartMetadata(const Options& options, const ClockChoice& clock) {
  MetadataWriter meta;
  char text[4096];
  meta.Add(metadata::kProgram, ProgramName());
  ReadCommandLine(text, sizeof text);
  meta.Add(metadata::kCommandLine, text);
  if (gethostname(text, sizeof text) != 0) std::snprintf(text, sizeof text, "unknown");
  text[sizeof text - 1] = '\0';
  meta.Add(metadata::kHost, text);
  meta.AddNumber(metadata::kPid, static_cast<double>(getpid()), "%.0f");
  meta.Add(metadata::kClock, ClockName());
  meta.Add(metadata::kClockReason, clock.reason);
  meta.AddNumber(metadata::kTscTicksPerNs, g_nominal_ticks_per_ns, "%.6f");
  timespec wall{};
  clock_gettime(CLOCK_REALTIME, &wall);
  std::snprintf(text, sizeof text, "%lld%09ld", static_cast<long long>(wall.tv_sec), wall.tv_nsec);
  meta.Add(metadata::kStartUnixNs, text);
  meta.AddNumber(metadata::kOverheadPerEventNs, g_overhead_ns, "%.2f");
  DescribeCalibration(text, sizeof text);
  meta.Add(metadata::kOverheadCalibration, text);
  meta.Add(metadata::kCompression, !options.compress ? "none"
                          : options.zstd  ? "delta; zstd level 1 on top while the flusher keeps up"
                                          : "delta");
  meta.Add(metadata::kGrainscopeVersion, "0.1.0");
  meta.Write();
}

}  // namespace

bool Open(const Options& options) {
  pthread_mutex_lock(&g_control_mutex);
  const uint32_t state = g_state.load(std::memory_order_acquire);
  if (state == kRecording || state == kCrashing) {
    pthread_mutex_unlock(&g_control_mutex);
    return state == kRecording;
  }
  g_options = options;
  if (!options.enable) {
    g_state.store(kDisabled, std::memory_order_release);
    pthread_mutex_unlock(&g_control_mutex);
    return true;
  }
  ChoosePath(options.path, g_path, sizeof g_path);
  if (!g_sink.Open(g_path)) {
    if (errno == EEXIST) {
      std::fprintf(stderr, "grainscope: '%s' exists and is not a grainscope trace: left untouched; recording is off\n",
                   g_path);
    } else {
      std::fprintf(stderr, "grainscope: cannot create the trace file '%s': %s; recording is off\n", g_path,
                   std::strerror(errno));
    }
    g_state.store(kDisabled, std::memory_order_release);
    pthread_mutex_unlock(&g_control_mutex);
    return false;
  }
  InstallProcessHooks();
  const ClockChoice clock = SelectClock(options.clock);
  g_dropped_events.store(0);
  g_crashing.store(false);

  CalibrateClock(clock);

  g_generation.fetch_add(1, std::memory_order_acq_rel);
  LockDefinitions();
  WriteSmallChunk(gst::kChunkClock, 0, &g_first_sample, sizeof g_first_sample);
  RewriteDefinitions();
  UnlockDefinitions();

  WriteStartMetadata(options, clock);

  if (options.signals) InstallCrashHandlers();
  g_state.store(kRecording, std::memory_order_seq_cst);
  if (options.background_flush) StartFlusher();
  pthread_mutex_unlock(&g_control_mutex);
  return true;
}

void EnsureStarted() {
  if (GS_LIKELY(g_state.load(std::memory_order_acquire) != kUninitialized)) return;
  pthread_mutex_lock(&g_control_mutex);
  const bool undecided = g_state.load(std::memory_order_acquire) == kUninitialized;
  pthread_mutex_unlock(&g_control_mutex);
  if (undecided) Open(OptionsFromEnvironment());
}

void Close() {
  pthread_mutex_lock(&g_control_mutex);
  if (g_state.load(std::memory_order_acquire) != kRecording) {
    pthread_mutex_unlock(&g_control_mutex);
    return;
  }
  g_state.store(kClosed, std::memory_order_seq_cst);
  DrainStreamsForClose();
  FinishAnalysesForClose();
  const gst::ClockSample last = WriteClockSample(false);
  WriteOnTheFlyResults(last);
  WriteEnd(gst::kEndExit, 0, false);
  g_sink.Close();
  // The calling thread's next event re-registers if a new trace is opened.
  pthread_mutex_unlock(&g_control_mutex);
}

const char* TracePath() { return g_path; }
double OverheadPerEventNs() { return g_overhead_ns; }
bool ClockIsTsc() { return ClockReadsTsc(); }
const char* ClockName() { return !ClockReadsTsc() ? "monotonic" : g_tsc_read == kTscOrdered ? "tsc-ordered" : "tsc"; }

// Without initialize_clock(), the first line printed: the program's first event, as the .gst
// reader's time zero is (set at Open, it counted the runtime's start-up as the program's time).
int64_t SeedTextOriginNs() {
  int64_t origin = g_seed_origin_ns.load(std::memory_order_relaxed);
  if (origin == 0) {
    int64_t expected = 0;
    g_seed_origin_ns.compare_exchange_strong(expected, MonotonicNs());
    origin = g_seed_origin_ns.load(std::memory_order_relaxed);
  }
  return origin;
}

void SetSeedTextOrigin(int64_t monotonic_ns) { g_seed_origin_ns.store(monotonic_ns, std::memory_order_relaxed); }

gst::ClockSample WriteClockSample(bool in_crash_handler) {
  gst::ClockSample sample = SampleClock(g_nominal_ticks_per_ns);
  if (in_crash_handler) {
    static WriterSlot slot;
    gst::ChunkHeader h{gst::kChunkClock, 0, sizeof sample, sizeof sample, 0, 0};
    g_sink.Write(slot, h, &sample, true);
    return sample;
  }
  LockDefinitions();
  WriteSmallChunk(gst::kChunkClock, 0, &sample, sizeof sample);
  UnlockDefinitions();
  return sample;
}

void CloseForCrash(int signal) {
  // No lock, no allocation: the state and the definitions lock may be held by the thread the
  // signal interrupted.
  g_state.store(kCrashing, std::memory_order_seq_cst);
  WriteClockSample(true);
  WriteEnd(gst::kEndSignal, signal, true);
}

namespace {

void WriteEnd(gst::EndReason reason, int signal, bool in_crash_handler) {
  gst::EndOfTrace end{};
  end.dropped_events = g_dropped_events.load(std::memory_order_relaxed);
  end.reason = reason;
  end.signal = signal;
  end.streams = g_stream_count.load(std::memory_order_relaxed);
  gst::ChunkHeader h{gst::kChunkEnd, 0, sizeof end, sizeof end, 0, 0};
  static WriterSlot slot;  // close holds the control lock; the crash handler runs once
  g_sink.Write(slot, h, &end, in_crash_handler);
}

}  // namespace

}  // namespace grainscope::record
