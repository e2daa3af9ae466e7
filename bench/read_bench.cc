// Read throughput of every trace reader (issue 18): one JSON object per format, on inputs written
// from reproducible synthetic traces, so that a change to the readers (the importer registry, the
// shared FIFO message matcher) can be measured against the previous version built from the same
// file.
//
//   * seedtext: a generated seed text trace (grains on processors, each sends an arc to its right
//     neighbour and receives one from its left; structure names reused every round);
//   * gst:      that trace converted to a single .gst file (the thread-recording shape);
//   * csv:      Pipit's CSV layout of the same shape (a region per grain, an MpiSend and an
//     MpiRecv instant per arc, float nanoseconds as Pipit writes them);
//   * projections: a Charm++ Projections run of 16 PEs (a .sts file and one gzip log per PE), each
//     PE's entry method receiving the message its left neighbour created in the round before and
//     creating one for its right (4 events per execution);
//   * nsight: an Nsight Systems SQLite export of 8 host threads, each launching kernels on its own
//     stream (cudaLaunchKernel and its kernel, joined by correlation id: 4 events a launch);
//   * otf2, chrome, gst_dir: bench/synthetic's MPI-like trace (ring messages, barriers) as an
//     OTF2 archive, Chrome JSON and a .gst directory of ranks.
//
//   read_bench [--smoke] [--events N] [--repeat R] [--only FORMAT] [--keep DIR] [--threads N]
// Times are medians over R runs of ReadTrace (format auto-detected, as the CLI does): CPU time
// of the reading thread ("cpu_seconds", what events_per_s, mb_per_s and ns_per_event use: the
// machine is shared), CPU time of the whole process ("process_cpu_seconds": with --threads above
// 1, the rank directory's parts are read on other threads too) and wall time. --threads N
// (default 1) is ReadOptions::threads: how many threads read a multi-file trace's parts.
// --keep DIR writes the inputs there and leaves them.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <unistd.h>

#include <fmt/format.h>
#include <sqlite3.h>
#include <zlib.h>

#include "bench/bench_clock.h"
#include "bench/synthetic/synthetic_trace.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

using bench::Median;
using bench::ThreadCpuSeconds;

// A seed text trace of about `events` model events (8 per grain): `processors` processors, each
// running one grain per round that sends to its right neighbour and receives from its left.
std::string SeedText(uint64_t events, uint32_t processors) {
  const uint64_t rounds = std::max<uint64_t>(1, events / 8 / processors);
  std::string out;
  out.reserve(rounds * processors * 190);
  for (uint64_t r = 0; r < rounds; ++r) {
    for (uint32_t p = 0; p < processors; ++p) {
      const uint64_t g = r * processors + p;
      const double t = static_cast<double>(r) * 1.0 + p * 0.001;  // ms
      const uint32_t right = (p + 1) % processors, left = (p + processors - 1) % processors;
      out += fmt::format(" start {} {} {:.6f}\n", p, g, t);
      out += fmt::format(" sendBegin arc {} to {} {} {:.6f}\n", p, right, g, t + 0.1);
      out += fmt::format(" sendEnd arc {} to {} {} {:.6f}\n", p, right, g, t + 0.2);
      out += fmt::format(" recvBegin arc {} to {} {} {:.6f}\n", left, p, g, t + 0.5);
      out += fmt::format(" recvEnd arc {} to {} {} {:.6f}\n", left, p, g, t + 0.6);
      out += fmt::format(" stop {} {} {:.6f}\n", p, g, t + 0.9);
    }
  }
  return out;
}

// The same shape as SeedText in Pipit's CSV layout (8 rows per grain).
std::string PipitCsv(uint64_t events, uint32_t processors) {
  const uint64_t rounds = std::max<uint64_t>(1, events / 8 / processors);
  std::string out = "Timestamp (ns),Event Type,Name,Thread,Process,Attributes\n";
  out.reserve(rounds * processors * 600);
  for (uint64_t r = 0; r < rounds; ++r) {
    for (uint32_t p = 0; p < processors; ++p) {
      const double t = static_cast<double>(r) * 1e6 + p * 1000.25;  // ns, with a fraction
      const uint32_t right = (p + 1) % processors, left = (p + processors - 1) % processors;
      out += fmt::format("{:.3f},Enter,grain,0,{},\n", t, p);
      out += fmt::format("{:.3f},Enter,MPI_Send,0,{},\n", t + 100, p);
      out += fmt::format("{:.3f},Instant,MpiSend,0,{},\"{{'receiver': {}, 'communicator': 'Comm 1', 'msg_tag': 1, "
                         "'msg_length': 64}}\"\n", t + 150, p, right);
      out += fmt::format("{:.3f},Leave,MPI_Send,0,{},\n", t + 200, p);
      out += fmt::format("{:.3f},Enter,MPI_Recv,0,{},\n", t + 500, p);
      out += fmt::format("{:.3f},Instant,MpiRecv,0,{},\"{{'sender': {}, 'communicator': 'Comm 1', 'msg_tag': 1, "
                         "'msg_length': 64}}\"\n", t + 600, p, left);
      out += fmt::format("{:.3f},Leave,MPI_Recv,0,{},\n", t + 650, p);
      out += fmt::format("{:.3f},Leave,grain,0,{},\n", t + 900, p);
    }
  }
  return out;
}

// The projections input: `dir`/ring.sts and one gzip log per PE; false when it cannot be written.
bool WriteProjections(const std::string& dir, uint64_t events, uint32_t pes) {
  const uint64_t rounds = std::max<uint64_t>(1, events / 4 / pes);
  const std::string sts = fmt::format("PROJECTIONS_ID\nVERSION 11.0\nPROCESSORS {}\nCHARE 0 \"Ring\" 1\n"
                                      "ENTRY CHARE 0 \"step(Msg* m)\" 0 0\nEND\n", pes);
  FILE* f = std::fopen((dir + "/ring.sts").c_str(), "wb");
  if (f == nullptr || std::fwrite(sts.data(), 1, sts.size(), f) != sts.size() || std::fclose(f) != 0) return false;
  for (uint32_t p = 0; p < pes; ++p) {
    const uint32_t left = (p + pes - 1) % pes;
    std::string log = fmt::format("PROJECTIONS-RECORD {}\n6 0\n", 3 * rounds + 2);
    for (uint64_t r = 0; r < rounds; ++r) {
      const uint64_t t = r * 1000 + p;  // microseconds
      const int64_t event = static_cast<int64_t>(r) - 1;
      const int64_t from = r == 0 ? -1 : left;
      log += fmt::format("2 0 0 {} {} {} 64 0 {} {}\n1 0 0 {} {} {} 64 0\n3 0 0 {} {} {} 64 {}\n", t, event, from, p, t,
                         t + 1, r, p, t + 5, event, from, t + 5);
    }
    log += fmt::format("7 {}\n", rounds * 1000 + pes);
    gzFile z = gzopen(fmt::format("{}/ring.{}.log.gz", dir, p).c_str(), "wb1");
    if (z == nullptr) return false;
    const bool ok = gzwrite(z, log.data(), static_cast<unsigned>(log.size())) == static_cast<int>(log.size());
    if (gzclose(z) != Z_OK || !ok) return false;
  }
  return true;
}

// The nsight input; false when it cannot be written.
bool WriteNsight(const std::string& path, uint64_t events, uint32_t threads) {
  fs::remove(path);
  sqlite3* db = nullptr;
  if (sqlite3_open(path.c_str(), &db) != SQLITE_OK) return false;
  auto exec = [&](const char* sql) { return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK; };
  bool ok = exec("PRAGMA journal_mode = OFF; BEGIN;"
                 "CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
                 "INSERT INTO StringIds VALUES (1, 'cudaLaunchKernel'), (2, 'step');"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER, end INTEGER, globalTid INTEGER, correlationId INTEGER, nameId INTEGER);"
                 "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER, end INTEGER, deviceId INTEGER, streamId INTEGER,"
                 " correlationId INTEGER, globalPid INTEGER, shortName INTEGER);");
  sqlite3_stmt* call = nullptr;
  sqlite3_stmt* kernel = nullptr;
  ok = ok && sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, ?, ?, 1)", -1, &call, nullptr) == SQLITE_OK;
  ok = ok && sqlite3_prepare_v2(db, "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, ?, ?, 7 << 24, 2)", -1, &kernel, nullptr) == SQLITE_OK;
  const uint64_t launches = std::max<uint64_t>(1, events / 4);
  for (uint64_t i = 0; ok && i < launches; ++i) {
    const int64_t thread = static_cast<int64_t>(i % threads), t = static_cast<int64_t>(i / threads) * 1000;
    const int64_t correlation = static_cast<int64_t>(i) + 1;
    const int64_t values[2][4] = {{t, t + 10, (int64_t{7} << 24) + 100 + thread, correlation}, {t + 20, t + 900, 10 + thread, correlation}};
    for (int k = 0; k < 2 && ok; ++k) {
      sqlite3_stmt* s = k == 0 ? call : kernel;
      for (int c = 0; c < 4; ++c) sqlite3_bind_int64(s, c + 1, values[k][c]);
      ok = sqlite3_step(s) == SQLITE_DONE && sqlite3_reset(s) == SQLITE_OK;
    }
  }
  sqlite3_finalize(call);
  sqlite3_finalize(kernel);
  ok = ok && exec("COMMIT;");
  return sqlite3_close(db) == SQLITE_OK && ok;
}

// The input's size on disk: a file, or every file of a directory (an OTF2 archive: its anchor's).
uint64_t BytesOf(std::string path) {
  std::error_code ec;
  if (fs::path(path).extension() == ".otf2") path = fs::path(path).parent_path().string();
  if (!fs::is_directory(path, ec)) return fs::file_size(path, ec);
  uint64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(path, ec))
    if (e.is_regular_file(ec)) n += e.file_size(ec);
  return n;
}

struct Input {
  std::string format;
  std::string path;
};

// Writes every input into `dir`; returns them, or an empty list (after a message) on failure.
std::vector<Input> WriteInputs(const std::string& dir, uint64_t events, const std::string& only) {
  std::vector<Input> inputs;
  auto wanted = [&](const char* f) { return only.empty() || only == f; };
  auto fail = [](const Status& s) {
    std::fprintf(stderr, "read_bench: %s\n", s.message().c_str());
    return std::vector<Input>();
  };
  fs::create_directories(dir);
  const std::string seed_path = dir + "/trace.txt";
  if (wanted("seedtext") || wanted("gst")) {
    const std::string text = SeedText(events, 16);
    FILE* f = std::fopen(seed_path.c_str(), "wb");
    if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0)
      return fail(IoError(seed_path + ": cannot write"));
    if (wanted("seedtext")) inputs.push_back({"seedtext", seed_path});
  }
  if (wanted("csv")) {
    const std::string text = PipitCsv(events, 16), path = dir + "/trace.csv";
    FILE* f = std::fopen(path.c_str(), "wb");
    if (f == nullptr || std::fwrite(text.data(), 1, text.size(), f) != text.size() || std::fclose(f) != 0)
      return fail(IoError(path + ": cannot write"));
    inputs.push_back({"csv", path});
  }
  if (wanted("projections")) {
    const std::string path = dir + "/projections";
    fs::create_directories(path);
    if (!WriteProjections(path, events, 16)) return fail(IoError(path + ": cannot write"));
    inputs.push_back({"projections", path});
  }
  if (wanted("nsight")) {
    if (!WriteNsight(dir + "/trace.sqlite", events, 8)) return fail(IoError(dir + "/trace.sqlite: cannot write"));
    inputs.push_back({"nsight", dir + "/trace.sqlite"});
  }
  if (wanted("gst")) {
    Result<Trace> seed = ReadTrace(seed_path);
    if (!seed.ok()) return fail(seed.status());
    OutputOptions force;
    force.force = true;
    if (Status s = WriteTrace(*seed, dir + "/seed.gst", "gst", force); !s.ok()) return fail(s);
    inputs.push_back({"gst", dir + "/seed.gst"});
  }
  if (wanted("otf2") || wanted("chrome") || wanted("gst_dir")) {
    SyntheticOptions o;
    o.locations = 16;
    o.events = events;
    Result<Trace> t = GenerateSyntheticTrace(o);
    if (!t.ok()) return fail(t.status());
    OutputOptions force;
    force.force = true;
    for (const auto& [format, path] : {std::pair<const char*, std::string>{"otf2", dir + "/otf2/traces.otf2"},
                                       {"chrome", dir + "/trace.json"},
                                       {"gst_dir", dir + "/ranks.gst"}}) {
      if (!wanted(format)) continue;
      const std::string name = std::strcmp(format, "gst_dir") == 0 ? "gst" : format;
      if (Status s = WriteTrace(*t, path, name, force); !s.ok()) return fail(s);
      inputs.push_back({format, path});
    }
  }
  return inputs;
}

double ProcessCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

bool Bench(const Input& in, int repeat, unsigned threads) {
  std::vector<double> wall, cpu, process_cpu;
  uint64_t events = 0, messages = 0, edges = 0;
  for (int i = 0; i < repeat; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = ThreadCpuSeconds(), p0 = ProcessCpuSeconds();
    Result<Trace> t = ReadTrace(in.path, "auto", ReadOptions{.threads = threads});
    cpu.push_back(ThreadCpuSeconds() - c0);
    process_cpu.push_back(ProcessCpuSeconds() - p0);
    wall.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    if (!t.ok()) {
      std::fprintf(stderr, "read_bench: %s\n", t.status().message().c_str());
      return false;
    }
    events = t->event_count();
    messages = t->messages().size();
    edges = t->dependencies().size();
  }
  const double s = Median(cpu), n = static_cast<double>(events), bytes = static_cast<double>(BytesOf(in.path));
  std::printf("{\"bench\": \"read_%s\", \"threads\": %u, \"events\": %llu, \"messages\": %llu, \"edges\": %llu, \"bytes\": %.0f, "
              "\"repeat\": %d, \"cpu_seconds\": %.4f, \"process_cpu_seconds\": %.4f, \"wall_seconds\": %.4f, "
              "\"events_per_s\": %.0f, \"mb_per_s\": %.1f, \"ns_per_event\": %.2f, \"wall_events_per_s\": %.0f}\n",
              in.format.c_str(), threads, static_cast<unsigned long long>(events), static_cast<unsigned long long>(messages),
              static_cast<unsigned long long>(edges), bytes, repeat, s, Median(process_cpu), Median(wall), n / s, bytes / s / 1e6, 1e9 * s / n, n / Median(wall));
  std::fflush(stdout);
  return events > 0 && (messages > 0 || edges > 0);  // a GPU trace has edges, not messages
}

int Main(int argc, char** argv) {
  uint64_t events = 2'000'000;
  int repeat = 5;
  std::string only, keep;
  unsigned threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--smoke") {
      events = 20'000;
      repeat = 1;
    } else if (a == "--events" && has_value) {
      events = std::strtoull(argv[++i], nullptr, 10);
    } else if (a == "--repeat" && has_value) {
      repeat = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--only" && has_value) {
      only = argv[++i];
    } else if (a == "--threads" && has_value) {
      threads = static_cast<unsigned>(std::max(1, std::atoi(argv[++i])));
    } else if (a == "--keep" && has_value) {
      keep = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: read_bench [--smoke] [--events N] [--repeat R] "
                   "[--only seedtext|csv|projections|nsight|gst|otf2|chrome|gst_dir] [--keep DIR] [--threads N]\n");
      return 2;
    }
  }
  const std::string dir =
      keep.empty() ? (fs::temp_directory_path() / ("gs_read_bench_" + std::to_string(getpid()))).string() : keep;
  const std::vector<Input> inputs = WriteInputs(dir, events, only);
  bool ok = !inputs.empty();
  for (const Input& in : inputs) ok = Bench(in, repeat, threads) && ok;
  std::error_code ec;
  if (keep.empty()) fs::remove_all(dir, ec);
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace grainscope

int main(int argc, char** argv) { return grainscope::Main(argc, argv); }
