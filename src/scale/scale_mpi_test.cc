// The sweep over shares with real MPI messages (gs_share_sweep_check under mpirun) on 1, 2 and 4
// ranks: every event's value and cause are the whole trace's; and grainscope-mpi critpath writes
// what grainscope critpath writes.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "bench/synthetic/synthetic_trace.h"
#include "format/otf2/otf2_writer.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

#ifdef GS_SANITIZER_BUILD
// Open MPI leaks its own allocations at MPI_Finalize (its unloaded components'): not ours to
// report. Memory errors are still fatal.
constexpr const char* kRankOptions = "-x ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:handle_segv=0";
#else
constexpr const char* kRankOptions = "";
#endif

// Runs a shell command line: its exit code and its output (stdout and stderr).
std::pair<int, std::string> Shell(const std::string& cmd) {
  FILE* p = popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::string out;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Runs `program args` on `ranks` MPI ranks.
std::pair<int, std::string> OnRanks(int ranks, const std::string& program, const std::string& args) {
  return Shell(fmt::format("{} {} --oversubscribe {} -np {} {} {}", GS_MPIEXEC,
                           geteuid() == 0 ? "--allow-run-as-root" : "", kRankOptions, ranks, program, args));
}

// Runs the check on `ranks` MPI ranks: its exit code and its output.
std::pair<int, std::string> RunCheck(int ranks, const std::string& trace) {
  return OnRanks(ranks, GS_SHARE_SWEEP_CHECK, trace);
}

std::string Slurp(const fs::path& path) {
  std::string out;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[65536];
    while (size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
    std::fclose(f);
  }
  return out;
}

// `grainscope-mpi critpath` on `ranks` ranks writes (-o) what `grainscope critpath` writes, in
// each format; `formats` those compared.
void ExpectCritPathIsGrainscopes(const std::string& trace, const fs::path& dir, int ranks,
                                 std::initializer_list<const char*> formats) {
  for (const char* format : formats) {
    SCOPED_TRACE(fmt::format("{} ranks, --format {}", ranks, format));
    const fs::path want = dir / fmt::format("want.{}", format), got = dir / fmt::format("got{}.{}", ranks, format);
    auto [rc, out] = Shell(fmt::format("{} critpath {} -f {} -o {} --force", GS_GRAINSCOPE, trace, format, want.string()));
    ASSERT_EQ(rc, 0) << out;
    std::tie(rc, out) = OnRanks(ranks, GS_GRAINSCOPE_MPI, fmt::format("critpath {} -f {} -o {} --force", trace, format,
                                                                      got.string()));
    ASSERT_EQ(rc, 0) << out;
    const std::string expected = Slurp(want);
    EXPECT_GT(expected.size(), 100u);
    EXPECT_TRUE(Slurp(got) == expected) << "differs from grainscope critpath's: " << got << " " << want;
  }
}

// `grainscope-mpi replay ARGS` on `ranks` ranks prints (stdout) what `grainscope replay ARGS` prints,
// in text and JSON.
void ExpectReplayIsGrainscopes(const std::string& trace, const fs::path& dir, int ranks, const std::string& args) {
  for (const char* format : {"text", "json"}) {
    SCOPED_TRACE(fmt::format("replay {} on {} ranks, --format {}", args, ranks, format));
    const fs::path want = dir / fmt::format("replay.{}", format), got = dir / fmt::format("replay{}.{}", ranks, format);
    auto [rc, out] = Shell(fmt::format("{} replay {} {} -f {} > {}", GS_GRAINSCOPE, trace, args, format, want.string()));
    ASSERT_EQ(rc, 0) << out;
    std::tie(rc, out) = OnRanks(ranks, GS_GRAINSCOPE_MPI, fmt::format("replay {} {} -f {} > {}", trace, args, format,
                                                                      got.string()));
    ASSERT_EQ(rc, 0) << out;
    const std::string expected = Slurp(want);
    EXPECT_GT(expected.size(), 100u);
    EXPECT_TRUE(Slurp(got) == expected) << "differs from grainscope replay's: " << got << " " << want;
  }
}

class ScaleMpi : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new fs::path(fs::temp_directory_path() / fmt::format("gs_scale_mpi_{}", getpid()));
    fs::create_directories(*dir_);
    SyntheticOptions o;
    o.locations = 8;
    o.events = 60000;
    o.seed = 3;
    Result<Trace> t = GenerateSyntheticTrace(o);
    ASSERT_TRUE(t.ok()) << t.status().message();
    ASSERT_TRUE(WriteOtf2(*t, (*dir_ / "ring").string()).ok());
    // The same run with rank 3's clock 20 us behind: receives before their sends (replay --clc).
    std::vector<std::vector<TimeNs>> times;
    for (uint32_t l = 0; l < t->locations().size(); ++l) {
      const std::span<const TimeNs> at = t->events(LocationId(l)).time;
      times.emplace_back(at.begin(), at.end());
      if (l == 3)
        for (TimeNs& time : times.back()) time -= 20000;
    }
    Result<Timeline> skewed = Timeline::FromLocations(std::move(times));
    ASSERT_TRUE(skewed.ok()) << skewed.status().message();
    Result<Trace> skewed_run = t->Retimed(std::move(*skewed), "");
    ASSERT_TRUE(skewed_run.ok()) << skewed_run.status().message();
    ASSERT_TRUE(WriteOtf2(*skewed_run, (*dir_ / "skewed").string()).ok());
  }
  static void TearDownTestSuite() {
    fs::remove_all(*dir_);
    delete dir_;
  }
  void SetUp() override {
    if (std::string(GS_MPIEXEC).empty() || access(GS_MPIEXEC, X_OK) != 0) GTEST_SKIP() << "mpirun is not available";
  }
  static std::string Ring() { return (*dir_ / "ring").string(); }
  static fs::path* dir_;
};
fs::path* ScaleMpi::dir_ = nullptr;

TEST_F(ScaleMpi, TheSweepOverOneTwoAndFourRanksIsTheWholeTraces) {
  for (int ranks : {1, 2, 4}) {
    const auto [rc, out] = RunCheck(ranks, Ring());
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find(fmt::format("{} shares: 60", ranks)), std::string::npos) << out;
    EXPECT_NE(out.find(", 0 differences, 0 failed ranks"), std::string::npos) << out;
  }
}

TEST_F(ScaleMpi, GrainscopeMpiCritpathWritesWhatGrainscopeWrites) {
  for (int ranks : {1, 2, 4}) ExpectCritPathIsGrainscopes(Ring(), *dir_, ranks, {"text", "json", "csv"});
}

// Identity, a fitted network, a modelled one with collectives, a faster rank, a region removed, a
// straggler removed, clocks corrected.
TEST_F(ScaleMpi, GrainscopeMpiReplayWritesWhatGrainscopeWrites) {
  for (int ranks : {1, 2, 4}) {
    ExpectReplayIsGrainscopes(Ring(), *dir_, ranks, "");
    ExpectReplayIsGrainscopes(Ring(), *dir_, ranks, "--network latbw");
  }
  ExpectReplayIsGrainscopes(Ring(), *dir_, 2, "--network loggp --collective log --latency 2us --speed 3=2 --region-speed 'kernel 5=1.5'");
  ExpectReplayIsGrainscopes(Ring(), *dir_, 4, "--zero-comm --remove-region 'kernel 7'");
  ExpectReplayIsGrainscopes(Ring(), *dir_, 3, "--unstraggle 'rank 7' --network latbw --latency 3us");
  const std::string skewed = (*dir_ / "skewed").string();
  ExpectReplayIsGrainscopes(skewed, *dir_, 3, "--clc --min-latency 100ns --network latbw");
  const auto [rc, out] = Shell(fmt::format("{} replay {} --clc", GS_GRAINSCOPE, skewed));
  EXPECT_NE(out.find("corrected by --clc"), std::string::npos) << out;  // the skew is there to correct
}

// A failure every rank has (a wrong path, an unknown name, an output that exists) is said once, by
// rank 0, with grainscope's exit code for it; nothing is written over.
TEST_F(ScaleMpi, GrainscopeMpiFailsWithAReason) {
  auto count = [](const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
  };
  const std::string missing = (*dir_ / "no_such.otf2").string();
  const auto [rc, out] = OnRanks(2, GS_GRAINSCOPE_MPI, "critpath " + missing);
  EXPECT_EQ(rc, 1) << out;
  EXPECT_EQ(count(out, "grainscope-mpi critpath: " + missing), 1u) << out;
  const auto [name_rc, name] = OnRanks(3, GS_GRAINSCOPE_MPI, "replay " + Ring() + " --remove-region 'no such region'");
  EXPECT_EQ(name_rc, 1) << name;
  EXPECT_EQ(count(name, "grainscope-mpi replay: no region named 'no such region' in the trace"), 1u) << name;
  const fs::path existing = *dir_ / "existing.txt";
  { std::ofstream(existing) << "not ours"; }
  const auto [exists_rc, exists] = OnRanks(2, GS_GRAINSCOPE_MPI, "critpath " + Ring() + " -o " + existing.string());
  EXPECT_EQ(exists_rc, 3) << exists;
  EXPECT_EQ(count(exists, "grainscope-mpi critpath: "), 1u) << exists;
  EXPECT_EQ(Slurp(existing), "not ours");
  const auto [usage_rc, usage] = OnRanks(2, GS_GRAINSCOPE_MPI, "critpath " + Ring() + " --format svg");
  EXPECT_EQ(usage_rc, 2) << usage;
  EXPECT_NE(usage.find("grainscope-mpi: "), std::string::npos) << usage;
}

// Real data: the hybrid BT-MZ run (8 ranks x 4 threads, rendezvous halo messages) on 4 ranks.
TEST_F(ScaleMpi, BtMzOverFourRanksIsTheWholeTraces) {
  const std::string path = std::string(GRAINSCOPE_CORPUS_DIR) + "/otf2-real/npb-btmz-B-8x4/traces.otf2";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus trace " << path << " is absent (../shared/corpus)";
#ifdef GS_SANITIZER_BUILD
  GTEST_SKIP() << "8.9 M events read twice on 4 ranks: too slow for a sanitizer build";
#endif
  const auto [rc, out] = RunCheck(4, path);
  EXPECT_EQ(rc, 0) << out;
  EXPECT_NE(out.find("4 shares: 8857066 of 8857066 events compared"), std::string::npos) << out;
  EXPECT_NE(out.find(", 0 differences, 0 failed ranks"), std::string::npos) << out;
  // Its notes (unmatched messages, skipped records) are the shares' own, so JSON's "notes" differ:
  // the text and CSV outputs are compared.
  ExpectCritPathIsGrainscopes(path, *dir_, 3, {"text", "csv"});
  // Each share's note counts its own locations' unmatched ends: 1407 sends to the empty rank 4.
  const auto [notes_rc, notes] =
      OnRanks(3, GS_GRAINSCOPE_MPI, fmt::format("critpath {} -o {} --force", path, (*dir_ / "bt.txt").string()));
  ASSERT_EQ(notes_rc, 0) << notes;
  uint64_t unmatched = 0, shares = 0;
  for (size_t at = notes.find("note: share "); at != std::string::npos; at = notes.find("note: share ", at + 1)) {
    const size_t colon = notes.find(": ", at + 12);
    const std::string rest = notes.substr(colon + 2, notes.find('\n', at) - colon - 2);
    if (rest.find("sent but never received") == std::string::npos) continue;
    unmatched += std::stoull(rest);
    ++shares;
  }
  EXPECT_EQ(unmatched, 1407u) << notes;
  EXPECT_GE(shares, 2u) << notes;
}

}  // namespace
}  // namespace grainscope
