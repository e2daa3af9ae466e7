// compensation_validation: does overhead compensation recover the uninstrumented run time?
// (issue 7 item 3; docs/compensation.md has the figures.)
//
// The program of compensation_workload.h runs alternately (a) built with GRAINSCOPE_DISABLE and
// (b) instrumented, recording a trace. For (b) it reports the measured time, the compensated time
// post mortem (Compensate() on the trace) and on the fly (the runtime's piggybacked delays), and
// the naive compensation (each location's time minus its own events' overhead, ignoring
// messages). Per grain: the producer's tiny grain and the consumer's receive (its waiting time).
// Figures: medians over --runs runs, the best run of each kind, the compensated figures of the
// least disturbed instrumented run against the best uninstrumented one, and the median b/a ratio
// over the run pairs in which neither run was disturbed (on a shared machine the last two are the
// ones to read); output is one JSON object on stdout.
// --smoke: two tiny runs, checks only that everything is produced (CI).
#include <unistd.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/compensate/compensate.h"
#include "format/gst/gst_reader.h"
#include "record/onthefly.h"
#include "record/runtime.h"

#define COMP_WORKLOAD_NAMESPACE comp_instrumented
#include "compensation_workload.h"
#undef COMP_WORKLOAD_NAMESPACE
#define COMP_WORKLOAD_NAMESPACE comp_plain
#include "compensation_workload.h"
#undef COMP_WORKLOAD_NAMESPACE

namespace {

namespace rec = grainscope::record;
using grainscope::Compensation;
using grainscope::Trace;

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct Figures {
  std::vector<double> a_total, a_grain, a_wait;
  std::vector<double> b_wall, b_total, b_comp, b_naive, b_otf, b_otf_measured, b_overhead_pct;
  std::vector<double> b_grain, b_grain_program, b_grain_comp, b_grain_naive, b_wait, b_wait_comp, b_wait_naive;
  std::vector<double> overhead_ns;
  std::vector<double> a_round_mean, b_round_mean, a_round_median, b_round_median;
  // The grain as `grainscope compensate` profiles it: the region's time per instance.
  std::vector<double> b_profile, b_profile_comp, ratio_profile_meas, ratio_profile_comp;
  std::vector<double> back_to_back_ns;  // in-trace check of the calibration, see BackToBackGap
  // Per run, (b) / (a) of the runs taken back to back: steadier than a ratio of medians when the
  // machine's load changes during the experiment.
  std::vector<double> ratio_meas, ratio_comp, ratio_otf, ratio_naive, ratio_grain_meas, ratio_grain_comp;
};

// Measured and compensated inclusive time per instance of the region named `name`.
bool RegionPerInstance(const Trace& t, const Compensation& c, const char* name, double* measured,
                       double* compensated) {
  for (const auto& r : c.regions) {
    if (t.str(t.region(r.region).name) != name || r.instances == 0) continue;
    *measured = static_cast<double>(r.measured_ns) / static_cast<double>(r.instances);
    *compensated = static_cast<double>(r.compensated_ns) / static_cast<double>(r.instances);
    return true;
  }
  return false;
}

// The producer's time per grain: its median round (send to send, as the program times itself in
// (a)) divided by the grains in a round, from the trace's send times, measured and compensated.
void PerGrainFromSends(const Trace& t, const Compensation& c, int grains, double* measured, double* compensated) {
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const grainscope::EventColumns& ev = t.events(grainscope::LocationId(l));
    const std::span<const grainscope::TimeNs> c_times = c.times.at(grainscope::LocationId(l));
    std::vector<double> m, k;
    int64_t last = -1, last_c = 0;
    for (grainscope::EventIndex i = 0; i < ev.size(); ++i) {
      if (ev.kind[i] != grainscope::EventKind::kSend) continue;
      if (last >= 0) {
        m.push_back(static_cast<double>(ev.time[i] - last));
        k.push_back(static_cast<double>(c_times[i] - last_c));
      }
      last = ev.time[i];
      last_c = c_times[i];
    }
    if (m.empty()) continue;
    *measured = Median(m) / grains;
    *compensated = Median(k) / grains;
    return;
  }
}

// The calibration checked in situ: the shortest distance in the trace between a region's end and
// the next region's begin on the same location. The producer's loop puts only its own increment
// and the calls between them, so this is one event's cost as the program paid it (the clock read
// of the end to the clock read of the begin: the rest of one event and the start of the next).
double BackToBackGap(const Trace& t) {
  int64_t best = INT64_MAX;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const grainscope::EventColumns& ev = t.events(grainscope::LocationId(l));
    for (grainscope::EventIndex i = 0; i + 1 < ev.size(); ++i) {
      if (ev.kind[i] == grainscope::EventKind::kLeave && ev.kind[i + 1] == grainscope::EventKind::kEnter)
        best = std::min<int64_t>(best, ev.time[i + 1] - ev.time[i]);
    }
  }
  return best == INT64_MAX ? 0 : static_cast<double>(best);
}

double Min(const std::vector<double>& v) { return v.empty() ? 0 : *std::min_element(v.begin(), v.end()); }

// Index of the smallest element (the least disturbed run).
size_t ArgMin(const std::vector<double>& v) {
  return v.empty() ? 0 : static_cast<size_t>(std::min_element(v.begin(), v.end()) - v.begin());
}

double Pct(double x, double ref) { return ref > 0 ? 100.0 * (x - ref) / ref : 0; }

// The command line.
struct Settings {
  bool smoke = false;
  int runs = 41;
  double overhead_override = -1;  // --overhead NS: post-mortem compensation with this per-event cost
  // --clock: how the instrumented build reads the TSC. Ordered by default: the grains are tiny,
  // and a plain rdtsc stamps a grain's end before its arithmetic is done (docs/recording.md,
  // "Timestamps and out-of-order execution"), which the per-grain profile would show.
  const char* clock = "tsc-ordered";
  comp_instrumented::Options wo;
};

// False after the usage line on an unknown option. --smoke: two tiny runs.
bool ParseSettings(int argc, char** argv, Settings& s) {
  comp_instrumented::Options& wo = s.wo;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--smoke") == 0) s.smoke = true;
    else if (std::strcmp(argv[i], "--runs") == 0 && i + 1 < argc) s.runs = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--rounds") == 0 && i + 1 < argc) wo.rounds = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--grains") == 0 && i + 1 < argc) wo.grains_per_round = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--overhead") == 0 && i + 1 < argc) s.overhead_override = std::atof(argv[++i]);
    else if (std::strcmp(argv[i], "--work") == 0 && i + 1 < argc) wo.work = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--consumer-work") == 0 && i + 1 < argc) wo.consumer_work = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--inline-work") == 0) wo.inline_work = true;
    else if (std::strcmp(argv[i], "--clock") == 0 && i + 1 < argc) s.clock = argv[++i];
    else {
      std::fprintf(stderr, "usage: %s [--smoke] [--runs N] [--rounds N] [--grains N] [--work N] [--consumer-work N] [--inline-work] [--overhead NS] [--clock tsc|tsc-ordered|monotonic]\n", argv[0]);
      return false;
    }
  }
  if (s.smoke) {
    s.runs = 2;
    wo.rounds = 50;
  }
  return true;
}

rec::Options RecordingOptions(const std::string& path, const char* clock) {
  rec::Options ro;
  ro.path = path.c_str();
  ro.signals = false;
  ro.clock = clock;
  // The largest buffer and no background flusher: nothing is written while the program runs
  // (the producer records ~170 k events in 4 MiB), so the instrumentation costs what the
  // start-up calibration measures. A flusher thread competing for the cores would add a cost
  // the calibration does not see (docs/compensation.md).
  ro.buffer_kib = 4096;
  ro.background_flush = false;
  return ro;
}

void AddPlainRun(const comp_plain::Outcome& a, int grains_per_round, Figures& f) {
  f.a_total.push_back(static_cast<double>(a.span_ns));
  f.a_grain.push_back(a.round_ns / grains_per_round);
  f.a_wait.push_back(a.consumer_wait_ns);
  f.a_round_mean.push_back(a.mean_round_ns);
  f.a_round_median.push_back(a.round_ns);
}

// The instrumented run's whole-run figures: measured, compensated three ways, and each against the
// uninstrumented run `a` taken just before it.
void AddInstrumentedTotals(const comp_plain::Outcome& a, const comp_instrumented::Outcome& b,
                           const rec::OnTheFlyTotals& otf, const Compensation& c, Figures& f) {
  f.overhead_ns.push_back(static_cast<double>(c.overhead_per_event_ns));
  f.b_wall.push_back(static_cast<double>(b.span_ns));
  f.b_round_mean.push_back(b.mean_round_ns);
  f.b_round_median.push_back(b.round_ns);
  f.b_total.push_back(static_cast<double>(c.measured_ns));
  f.b_comp.push_back(static_cast<double>(c.compensated_ns));
  f.b_naive.push_back(static_cast<double>(c.naive_ns));
  f.b_otf.push_back(static_cast<double>(otf.compensated_ns));
  f.b_otf_measured.push_back(static_cast<double>(otf.measured_ns));
  f.b_overhead_pct.push_back(Pct(static_cast<double>(b.span_ns), static_cast<double>(a.span_ns)));
  f.ratio_comp.push_back(static_cast<double>(c.compensated_ns) / static_cast<double>(a.span_ns));
  f.ratio_meas.push_back(static_cast<double>(c.measured_ns) / static_cast<double>(a.span_ns));
  f.ratio_naive.push_back(static_cast<double>(c.naive_ns) / static_cast<double>(a.span_ns));
  f.ratio_otf.push_back(static_cast<double>(otf.compensated_ns) / static_cast<double>(a.span_ns));
}

// The instrumented run's per-grain figures: the consumer's receive, the producer's grain as the
// profile sees it and from its send times; false (after a message) when the trace lacks the
// program's regions.
bool AddInstrumentedGrains(const Trace& t, const Compensation& c, const comp_instrumented::Outcome& b,
                           int grains_per_round, Figures& f) {
  const double o = static_cast<double>(c.overhead_per_event_ns);
  double m = 0, cm = 0;
  if (!RegionPerInstance(t, c, "receive", &m, &cm)) {
    std::fprintf(stderr, "the trace lacks the program's receives\n");
    return false;
  }
  f.b_wait.push_back(m);
  f.b_wait_comp.push_back(cm);
  f.b_wait_naive.push_back(std::max(0.0, m - o));  // its own events' overhead only
  if (!RegionPerInstance(t, c, "tiny", &m, &cm)) {
    std::fprintf(stderr, "the trace lacks the program's grains\n");
    return false;
  }
  f.b_profile.push_back(m);
  f.b_profile_comp.push_back(cm);
  f.ratio_profile_meas.push_back(m / f.a_grain.back());
  f.ratio_profile_comp.push_back(cm / f.a_grain.back());
  PerGrainFromSends(t, c, grains_per_round, &m, &cm);
  f.b_grain.push_back(m);
  f.b_grain_program.push_back(b.round_ns / grains_per_round);
  f.b_grain_comp.push_back(cm);
  f.ratio_grain_meas.push_back(m / f.a_grain.back());
  f.ratio_grain_comp.push_back(cm / f.a_grain.back());
  f.b_grain_naive.push_back(cm);  // no receive on the producer: the naive method agrees there
  return true;
}

// One instrumented run recorded to `path`, read back and compensated, against the uninstrumented
// run `a` taken just before it; false (after a message) when any step fails.
bool InstrumentedRun(const Settings& s, const rec::Options& ro, const std::string& path, const comp_plain::Outcome& a,
                     Figures& f) {
  if (!rec::Open(ro)) return false;
  const comp_instrumented::Outcome b = comp_instrumented::Run(s.wo);
  rec::Close();
  const rec::OnTheFlyTotals otf = rec::LastOnTheFlyTotals();
  grainscope::Result<Trace> t = grainscope::ReadGstFile(path);
  if (!t.ok()) {
    std::fprintf(stderr, "cannot read the trace: %s\n", std::string(t.status().message()).c_str());
    return false;
  }
  grainscope::CompensateOptions co;
  if (s.overhead_override >= 0) co.overhead_per_event_ns = s.overhead_override;
  grainscope::Result<Compensation> c = grainscope::Compensate(*t, co);
  if (!c.ok()) {
    std::fprintf(stderr, "compensation failed: %s\n", std::string(c.status().message()).c_str());
    return false;
  }
  AddInstrumentedTotals(a, b, otf, *c, f);
  f.back_to_back_ns.push_back(BackToBackGap(*t));
  return AddInstrumentedGrains(*t, *c, b, s.wo.grains_per_round, f);
}

// The experiment's settings, the calibration and whether the consumer waited at all.
void PrintSetup(const Settings& s, const Figures& f) {
  const comp_instrumented::Options& wo = s.wo;
  std::printf("  \"runs\": %d, \"rounds\": %d, \"grains_per_round\": %d, \"work\": %d, \"consumer_work\": %d,\n", s.runs,
              wo.rounds, wo.grains_per_round, wo.work, wo.consumer_work);
  std::printf("  \"overhead_per_event_ns\": %.2f, \"overhead_source\": \"%s\",\n", Median(f.overhead_ns),
              s.overhead_override >= 0 ? "--overhead (post mortem only; on the fly uses the calibration)" : "start-up calibration");
  std::printf("  \"in_trace_back_to_back_event_ns\": {\"median\": %.0f, \"min\": %.0f},\n", Median(f.back_to_back_ns),
              Min(f.back_to_back_ns));
  std::printf("  \"inline_work\": %s, \"clock\": \"%s\",\n", wo.inline_work ? "true" : "false", rec::ClockName());
  std::printf("  \"instrumentation_overhead_pct\": %.1f,\n", Median(f.b_overhead_pct));
  // The experiment needs the threads on two processors at once: then the consumer, whose work per
  // round is shorter than the producer's batch, waits in every receive. If it hardly waits, the
  // two shared one processor (a loaded machine) and the totals measure the scheduler.
  std::printf("  \"consumer_waited\": %s,\n",
              Median(f.a_wait) > 0.25 * Median(f.a_grain) * wo.grains_per_round ? "true" : "false");
}

// Medians over the runs: totals, their errors against (a), and the ratios b/a per run pair.
void PrintMedians(const Figures& f) {
  const double a_total = Median(f.a_total);
  const double comp = Median(f.b_comp), naive = Median(f.b_naive), otf = Median(f.b_otf), meas = Median(f.b_total);
  std::printf("  \"total_ns\": {\"a_uninstrumented\": %.0f, \"b_measured\": %.0f, \"b_measured_wall\": %.0f, "
              "\"b_compensated_post_mortem\": %.0f, \"b_compensated_on_the_fly\": %.0f, \"b_naive\": %.0f},\n",
              a_total, meas, Median(f.b_wall), comp, otf, naive);
  std::printf("  \"total_error_pct_vs_a\": {\"b_measured\": %.1f, \"b_compensated_post_mortem\": %.1f, "
              "\"b_compensated_on_the_fly\": %.1f, \"b_naive\": %.1f},\n",
              Pct(meas, a_total), Pct(comp, a_total), Pct(otf, a_total), Pct(naive, a_total));
  std::printf("  \"median_ratio_to_a\": {\"b_measured\": %.3f, \"b_compensated_post_mortem\": %.3f, "
              "\"b_compensated_on_the_fly\": %.3f, \"b_naive\": %.3f},\n",
              Median(f.ratio_meas), Median(f.ratio_comp), Median(f.ratio_otf), Median(f.ratio_naive));
  // The verdict (issue 7 item 3): per run pair (a and b back to back, so a slow phase of the
  // machine hits both), b/a; the median over the pairs; within 5 %?
  const double err_total = 100.0 * (Median(f.ratio_comp) - 1), err_grain = 100.0 * (Median(f.ratio_grain_comp) - 1);
  const double err_profile = 100.0 * (Median(f.ratio_profile_comp) - 1);
  const auto within = [](double err) { return std::fabs(err) <= 5 ? "true" : "false"; };
  std::printf("  \"paired_error_pct\": {\"total\": {\"b_measured\": %.1f, \"b_compensated\": %.1f, \"b_compensated_on_the_fly\": %.1f, "
              "\"b_naive\": %.1f}, \"tiny_grain\": {\"b_measured\": %.1f, \"b_compensated\": %.1f}, "
              "\"tiny_grain_profile\": {\"b_measured\": %.1f, \"b_compensated\": %.1f}, "
              "\"within_5_pct\": {\"total\": %s, \"tiny_grain\": %s, \"tiny_grain_profile\": %s}},\n",
              100.0 * (Median(f.ratio_meas) - 1), err_total, 100.0 * (Median(f.ratio_otf) - 1), 100.0 * (Median(f.ratio_naive) - 1),
              100.0 * (Median(f.ratio_grain_meas) - 1), err_grain, 100.0 * (Median(f.ratio_profile_meas) - 1), err_profile,
              within(err_total), within(err_grain), within(err_profile));
}

// The least disturbed run of each kind (on a shared machine a run that lost the processor to
// another job is only ever slower).
void PrintBestRuns(const Figures& f) {
  const double a_best = Min(f.a_total);
  std::printf("  \"best_run_ns\": {\"a_uninstrumented\": %.0f, \"b_measured\": %.0f, \"b_compensated_post_mortem\": %.0f, "
              "\"b_compensated_on_the_fly\": %.0f, \"b_naive\": %.0f},\n",
              a_best, Min(f.b_total), Min(f.b_comp), Min(f.b_otf), Min(f.b_naive));
  std::printf("  \"best_run_error_pct_vs_a\": {\"b_measured\": %.1f, \"b_compensated_post_mortem\": %.1f, "
              "\"b_compensated_on_the_fly\": %.1f, \"b_naive\": %.1f},\n",
              Pct(Min(f.b_total), a_best), Pct(Min(f.b_comp), a_best), Pct(Min(f.b_otf), a_best), Pct(Min(f.b_naive), a_best));
  // The best compensated value of all runs is biased low (the minimum of noisy values). Instead:
  // the compensated figures of the least disturbed instrumented run (smallest measured time),
  // against the best uninstrumented run.
  const size_t lt = ArgMin(f.b_total), lg = ArgMin(f.b_grain);
  const double a_best_grain = Min(f.a_grain);
  std::printf("  \"least_disturbed_b_run\": {\"total_ns\": {\"b_measured\": %.0f, \"b_compensated\": %.0f, \"b_naive\": %.0f, "
              "\"error_pct_vs_best_a\": {\"b_measured\": %.1f, \"b_compensated\": %.1f, \"b_naive\": %.1f}}, "
              "\"tiny_grain_ns\": {\"b_measured\": %.1f, \"b_compensated\": %.1f, \"error_pct_vs_best_a\": %.1f}},\n",
              f.b_total[lt], f.b_comp[lt], f.b_naive[lt], Pct(f.b_total[lt], a_best), Pct(f.b_comp[lt], a_best),
              Pct(f.b_naive[lt], a_best), f.b_grain[lg], f.b_grain_comp[lg], Pct(f.b_grain_comp[lg], a_best_grain));
}

// The steadiest figure on a shared machine with a varying clock rate: per run pair (a and b
// taken back to back), the ratio b/a, median over the pairs in which neither run was disturbed
// (each within 5 % of the fastest run of its kind).
void PrintUndisturbedPairs(const Figures& f) {
  std::vector<double> ok_comp, ok_meas, ok_naive, ok_grain;
  const double a_best = Min(f.a_total), b_best = Min(f.b_total), a_best_g = Min(f.a_grain), b_best_g = Min(f.b_grain);
  for (size_t i = 0; i < f.a_total.size(); ++i) {
    if (f.a_total[i] <= 1.05 * a_best && f.b_total[i] <= 1.05 * b_best) {
      ok_comp.push_back(f.ratio_comp[i]);
      ok_meas.push_back(f.ratio_meas[i]);
      ok_naive.push_back(f.ratio_naive[i]);
    }
    if (f.a_grain[i] <= 1.05 * a_best_g && f.b_grain[i] <= 1.05 * b_best_g) ok_grain.push_back(f.b_grain_comp[i] / f.a_grain[i]);
  }
  // Error in % of the median ratio, or null without any undisturbed pair.
  const auto pct = [](const std::vector<double>& ratios) {
    if (ratios.empty()) return std::string("null");
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", 100.0 * (Median(ratios) - 1));
    return std::string(text);
  };
  std::printf("  \"undisturbed_pairs\": {\"total\": {\"pairs\": %zu, \"error_pct\": {\"b_measured\": %s, \"b_compensated\": %s, "
              "\"b_naive\": %s}}, \"tiny_grain\": {\"pairs\": %zu, \"error_pct_b_compensated\": %s}},\n",
              ok_comp.size(), pct(ok_meas).c_str(), pct(ok_comp).c_str(), pct(ok_naive).c_str(), ok_grain.size(),
              pct(ok_grain).c_str());
}

// The producer's rounds and the per-grain figures: the tiny grain and the consumer's receive.
void PrintPerGrain(const Figures& f) {
  std::printf("  \"producer_round_ns\": {\"a\": {\"median\": %.0f, \"mean\": %.0f}, \"b\": {\"median\": %.0f, \"mean\": %.0f}},\n",
              Median(f.a_round_median), Median(f.a_round_mean), Median(f.b_round_median), Median(f.b_round_mean));
  std::printf("  \"per_grain_ns\": {\n");
  std::printf("    \"tiny_profile\": {\"b_measured\": %.1f, \"b_compensated\": %.1f},\n", Median(f.b_profile),
              Median(f.b_profile_comp));
  std::printf("    \"tiny\": {\"a\": %.1f, \"b_measured\": %.1f, \"b_measured_by_program\": %.1f, \"b_compensated\": %.1f, "
              "\"b_naive\": %.1f, \"best_a\": %.1f, \"best_b_measured\": %.1f, \"best_b_compensated\": %.1f},\n", Median(f.a_grain),
              Median(f.b_grain), Median(f.b_grain_program), Median(f.b_grain_comp), Median(f.b_grain_naive), Min(f.a_grain),
              Min(f.b_grain), Min(f.b_grain_comp));
  std::printf("    \"consumer_receive_wait\": {\"a\": %.1f, \"b_measured\": %.1f, \"b_compensated\": %.1f, \"b_naive\": %.1f, "
              "\"best_a\": %.1f, \"best_b_measured\": %.1f, \"best_b_compensated\": %.1f, \"best_b_naive\": %.1f}\n",
              Median(f.a_wait), Median(f.b_wait), Median(f.b_wait_comp), Median(f.b_wait_naive), Min(f.a_wait), Min(f.b_wait),
              Min(f.b_wait_comp), Min(f.b_wait_naive));
  std::printf("  }\n");
}

}  // namespace

int main(int argc, char** argv) {
  Settings s;
  if (!ParseSettings(argc, argv, s)) return 2;
  const comp_instrumented::Options& wo = s.wo;
  comp_plain::Options po{wo.rounds, wo.grains_per_round, wo.work, wo.consumer_work, wo.inline_work};
  const std::string dir = (std::filesystem::temp_directory_path() /
                           ("gs_compensation_validation." + std::to_string(getpid()))).string();
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/run.gst";
  const rec::Options ro = RecordingOptions(path, s.clock);
  // Warm-up of both builds (caches, the thread machinery, the recording threads' buffers).
  (void)comp_plain::Run(po);
  if (!rec::Open(ro)) return 1;
  (void)comp_instrumented::Run(wo);
  rec::Close();
  Figures f;
  for (int run = 0; run < s.runs; ++run) {
    const comp_plain::Outcome a = comp_plain::Run(po);
    AddPlainRun(a, po.grains_per_round, f);
    if (!InstrumentedRun(s, ro, path, a, f)) return 1;
  }
  std::filesystem::remove_all(dir);
  std::printf("{\n");
  PrintSetup(s, f);
  PrintMedians(f);
  PrintBestRuns(f);
  PrintUndisturbedPairs(f);
  PrintPerGrain(f);
  std::printf("}\n");
  return 0;
}
