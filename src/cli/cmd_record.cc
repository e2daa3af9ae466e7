// grainscope record -np N [--trace DIR] -- ./app args: runs an MPI program under mpirun with
// libgrainscope-mpi preloaded, so that every rank writes its .gst stream into one trace directory,
// then reads that directory and prints where it is with a one-line summary.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"

extern char** environ;

namespace grainscope::cli {
namespace {

namespace fs = std::filesystem;

struct RecordOptions {
  int ranks = 0;
  std::string trace;
  std::string library;
  std::string mpirun = "mpirun";
  std::vector<std::string> program;
};

// The wrapper library: --library, else $GRAINSCOPE_MPI_LIBRARY, else beside this binary's lib
// directory (build/bin/grainscope -> build/lib; <prefix>/bin -> <prefix>/lib).
Result<std::string> FindLibrary(const std::string& given) {
  if (!given.empty()) return fs::absolute(given).string();
  if (const char* env = std::getenv("GRAINSCOPE_MPI_LIBRARY"); env != nullptr && *env != '\0') return std::string(env);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const char* lib : {"lib", "lib64", "lib/x86_64-linux-gnu"}) {
      const fs::path candidate = exe.parent_path().parent_path() / lib / "libgrainscope-mpi.so";
      if (fs::exists(candidate, ec)) return candidate.string();
    }
  }
  return NotFound("libgrainscope-mpi.so not found next to the grainscope binary; name it with --library");
}

// Runs argv, waits, returns its exit status (or 128 + signal).
Result<int> Spawn(const std::vector<std::string>& args) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ);
  if (rc != 0) return NotFound(fmt::format("cannot run {}: {}", args[0], std::strerror(rc)));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return Internal(fmt::format("waiting for {}: {}", args[0], std::strerror(errno)));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

void Summarize(const std::string& trace, const Trace& t) {
  size_t matched = 0;
  for (size_t i = 0; i < t.messages().size(); ++i) {
    matched += t.messages().send_event[i] != kNoEvent && t.messages().recv_event[i] != kNoEvent;
  }
  std::fprintf(stdout, "trace: %s\n", trace.c_str());
  std::fprintf(stdout, "  %zu locations, %llu events, %zu messages (%zu unmatched), %zu collectives\n",
               t.locations().size(), static_cast<unsigned long long>(t.event_count()), matched,
               t.messages().size() - matched, t.collectives().size());
}

bool HoldsFiles(const std::string& dir) {
  std::error_code ec;
  return fs::exists(dir, ec) && !(fs::is_directory(dir, ec) && fs::is_empty(dir, ec));
}

// A trace is one run: --trace must be new or empty (the library refuses one holding files, and
// the program would run for nothing); the default name takes the first free -2, -3, ... suffix.
Result<std::string> TraceDirectoryFor(const RecordOptions& o) {
  if (!o.trace.empty()) {
    if (HoldsFiles(o.trace))
      return FailedPrecondition(fmt::format("{} already exists and is not an empty directory: a trace is one run; "
                                            "name a new directory with --trace", o.trace));
    return o.trace;
  }
  const std::string base = fmt::format("grainscope-{}-{}", fs::path(o.program[0]).filename().string(), getpid());
  for (int attempt = 1;; ++attempt) {
    std::string candidate = attempt == 1 ? base : fmt::format("{}-{}", base, attempt);
    if (!HoldsFiles(candidate)) return candidate;
  }
}

// Runs the program; *program_status is its exit status (grainscope record exits with it).
Status Record(const RecordOptions& o, int* program_status) {
  if (o.ranks <= 0) return InvalidArgument("-np needs a positive number of ranks");
  if (o.program.empty()) return InvalidArgument("no program to run: grainscope record -np N -- ./app args");
  GS_ASSIGN_OR_RETURN(std::string library, FindLibrary(o.library));
  GS_ASSIGN_OR_RETURN(const std::string trace, TraceDirectoryFor(o));
  std::vector<std::string> args = {o.mpirun};
  if (geteuid() == 0) args.push_back("--allow-run-as-root");  // mpirun refuses root without it
  args.insert(args.end(), {"--oversubscribe", "-np", std::to_string(o.ranks), "-x", "LD_PRELOAD=" + library, "-x",
                           "GRAINSCOPE_TRACE=" + trace});
  args.insert(args.end(), o.program.begin(), o.program.end());
  GS_ASSIGN_OR_RETURN(int exit_code, Spawn(args));
  *program_status = exit_code;
  auto read = ReadTrace(trace);
  // A failed run (a rank that exits without MPI_Finalize, a crash) usually still leaves a trace
  // worth looking at: summarise it, then report the failure.
  if (exit_code != 0 && read.ok()) Summarize(trace, *read);
  if (exit_code != 0) {
    return FailedPrecondition(fmt::format("{} exited with status {}; the trace (if any) is in {}", o.mpirun, exit_code, trace));
  }
  if (!read.ok()) return read.status();
  Summarize(trace, *read);
  return OkStatus();
}

}  // namespace

CommandBody AddRecordCommand(CLI::App& app) {
  auto o = std::make_shared<RecordOptions>();
  CLI::App* cmd = app.add_subcommand(
      "record", "Run an MPI program under mpirun with libgrainscope-mpi preloaded: one .gst stream "
                "per rank in one trace directory (grainscope record -np 4 -- ./app args); exits with the "
                "program's status");
  cmd->add_option("-n,--np", o->ranks, "number of MPI ranks (-np works too)")->required();
  cmd->add_option("--trace", o->trace, "trace directory, new or empty (default: grainscope-<program>-<pid>, "
                                       "with -2, -3, ... when taken)");
  cmd->add_option("--library", o->library, "the wrapper library (default: lib/libgrainscope-mpi.so next to this binary)");
  cmd->add_option("--mpirun", o->mpirun, "the MPI launcher (default: mpirun)");
  cmd->add_option("program", o->program, "the program and its arguments, after --")->required();
  return [o] {
    int program_status = 0;
    const int rc = Run("record", [&]() -> Status { return Record(*o, &program_status); });
    return program_status != 0 ? program_status : rc;
  };
}

}  // namespace grainscope::cli
