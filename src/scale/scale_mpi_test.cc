// The sweep over shares with real MPI messages (gs_share_sweep_check under mpirun) on 1, 2 and 4
// ranks: every event's value and cause are the whole trace's; and grainscope-mpi critpath writes
// what grainscope critpath writes.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
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

// A rank's failure ends the job with grainscope's exit code and one line saying which rank and why.
TEST_F(ScaleMpi, GrainscopeMpiFailsWithAReason) {
  const std::string missing = (*dir_ / "no_such.otf2").string();
  const auto [rc, out] = OnRanks(2, GS_GRAINSCOPE_MPI, "critpath " + missing);
  EXPECT_NE(rc, 0) << out;
  EXPECT_NE(out.find("grainscope-mpi critpath: rank "), std::string::npos) << out;
  EXPECT_NE(out.find(missing), std::string::npos) << out;
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
