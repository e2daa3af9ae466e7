// OTF2 load time: our reader (ReadTrace on the archive: definitions, events, message and
// collective matching, the whole Trace) against `otf2-print ARCHIVE > /dev/null` (libotf2 reading
// and printing every record), side by side on the same generated trace, medians of --runs runs.
// The goal (issue 4): ours at most 1.5x otf2-print on 10 million events. Prints JSON.
//   otf2_load_bench [--events 10000000] [--locations 64] [--runs 5] [--smoke]
#include <sys/wait.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <unistd.h>

#include "format/otf2/otf2_writer.h"
#include "format/trace_reader.h"
#include "synthetic/synthetic_trace.h"

namespace {

using namespace grainscope;
using Clock = std::chrono::steady_clock;

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : (v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2);
}

// Seconds per run of each reader, and the events ours read.
struct LoadTimes {
  std::vector<double> ours, print;  // print: empty without otf2-print on the PATH
  uint64_t events = 0;
};

// Reads `anchor` `runs` times with our reader, each followed by otf2-print when `have_print`;
// false (after a message) when either fails.
bool TimeLoads(const std::string& anchor, int runs, bool have_print, LoadTimes& times) {
  for (int r = 0; r < runs; ++r) {
    auto t0 = Clock::now();
    auto t = ReadTrace(anchor);
    times.ours.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
    if (!t.ok()) {
      std::fprintf(stderr, "otf2_load_bench: %s\n", t.status().message().c_str());
      return false;
    }
    times.events = t->event_count();
    if (have_print) {
      t0 = Clock::now();
      const int rc = std::system(fmt::format("otf2-print '{}' > /dev/null", anchor).c_str());
      times.print.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
      if (rc != 0) {
        std::fprintf(stderr, "otf2_load_bench: otf2-print failed (%d)\n", rc);
        return false;
      }
    }
  }
  return true;
}

// The generated trace written as an OTF2 archive at `anchor`; false (after a message) on failure.
bool WriteArchive(const SyntheticOptions& o, const std::string& anchor, size_t& locations) {
  auto trace = GenerateSyntheticTrace(o);
  if (!trace.ok()) {
    std::fprintf(stderr, "otf2_load_bench: %s\n", trace.status().message().c_str());
    return false;
  }
  locations = trace->locations().size();
  if (Status s = WriteOtf2(*trace, anchor); !s.ok()) {
    std::fprintf(stderr, "otf2_load_bench: %s\n", s.message().c_str());
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  SyntheticOptions o;
  o.events = 10'000'000;
  int runs = 5;
  bool smoke = false;
  std::string dir = fmt::format("{}/gs_otf2_load_bench_{}", std::filesystem::temp_directory_path().string(), getpid());
  CLI::App app{"OTF2 load time: grainscope's reader vs otf2-print"};
  app.add_option("--events", o.events, "events in the generated trace");
  app.add_option("--locations", o.locations, "locations");
  app.add_option("--runs", runs, "runs of each (median reported)")->check(CLI::PositiveNumber);
  app.add_option("--dir", dir, "where to write the trace (removed afterwards)");
  app.add_flag("--smoke", smoke, "a small trace, one run: checks that the benchmark works");
  CLI11_PARSE(app, argc, argv);
  if (smoke) {
    o.events = 20'000;
    o.locations = 8;
    runs = 1;
  }
  const std::string anchor = dir + "/trace.otf2";
  size_t locations = 0;
  if (!WriteArchive(o, anchor, locations)) return 1;
  const bool have_print = std::system("command -v otf2-print > /dev/null 2>&1") == 0;
  LoadTimes times;
  if (!TimeLoads(anchor, runs, have_print, times)) return 1;
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  const double ours_s = Median(times.ours), print_s = Median(times.print);
  const uint64_t events = times.events;
  std::printf("%s\n", fmt::format(R"({{"events": {}, "locations": {}, "runs": {}, "grainscope_load_s": {:.4f}, "otf2_print_s": {}, "ratio": {}, "ns_per_event": {:.1f}}})",
                                  events, locations, runs, ours_s,
                                  have_print ? fmt::format("{:.4f}", print_s) : "null",
                                  have_print && print_s > 0 ? fmt::format("{:.3f}", ours_s / print_s) : "null",
                                  events ? ours_s * 1e9 / events : 0.0).c_str());
  return 0;
}
