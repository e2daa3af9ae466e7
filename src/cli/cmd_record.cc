// grainscope record -np N [--trace DIR] -- ./app args: runs an MPI program under mpirun with
// libgrainscope-mpi preloaded, so that every rank writes its .gst stream into one trace directory;
// grainscope record [--trace FILE] -- ./app args (no -np): runs a threaded program with
// libgrainscope-pthread preloaded, which records its threads' synchronisation into one .gst file;
// --openmp (the OMPT tool) and --pthreads combine with -np for hybrid programs (FindRecorders).
// Then reads the trace and prints where it is with a one-line summary.
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
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
  bool openmp = false;
  bool pthreads = false;
  std::vector<std::string> program;
};

// The wrapper library `base` (libgrainscope-pthread): --library, else $`env_var`, else by its
// soname (libgrainscope-pthread.so.0: the file a system package ships without the -dev symlink)
// in the library directory relative to this binary — the installed one (GS_INSTALLED_LIBDIR,
// <prefix>/bin -> <prefix>/lib/x86_64-linux-gnu on Debian; src/CMakeLists.txt) or the build
// tree's (build/bin -> build/lib).
Result<std::string> FindLibrary(const std::string& given, const char* base, const char* env_var) {
  if (!given.empty()) return fs::absolute(given).string();
  if (const char* env = std::getenv(env_var); env != nullptr && *env != '\0') return std::string(env);
  const std::string name = fmt::format("{}.so.{}", base, GS_WRAPPER_SOVERSION);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    for (const char* lib : {GS_INSTALLED_LIBDIR, "../lib"}) {
      const fs::path candidate = (exe.parent_path() / lib / name).lexically_normal();
      if (fs::exists(candidate, ec)) return candidate.string();
    }
  }
  return NotFound(fmt::format("{} not found next to the grainscope binary; name it with --library", name));
}

// Runs argv with this process's environment plus `extra` (NAME=value entries, replacing the
// inherited ones), waits, returns its exit status (or 128 + signal).
Result<int> Spawn(const std::vector<std::string>& args, const std::vector<std::string>& extra = {}) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::vector<char*> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string_view entry(*e);
    const bool replaced = std::any_of(extra.begin(), extra.end(), [&](const std::string& x) {
      return entry.substr(0, entry.find('=') + 1) == std::string_view(x).substr(0, x.find('=') + 1);
    });
    if (!replaced) env.push_back(*e);
  }
  for (const std::string& x : extra) env.push_back(const_cast<char*>(x.c_str()));
  env.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), env.data());
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
  std::fprintf(stdout, "  %zu locations, %llu events, %zu messages (%zu unmatched), %zu collectives",
               t.locations().size(), static_cast<unsigned long long>(t.event_count()), matched,
               t.messages().size() - matched, t.collectives().size());
  if (t.syncs().size() > 0) {
    std::fprintf(stdout, ", %zu sync events (%zu dependencies between threads)", t.syncs().size(),
                 t.dependencies().size());
  }
  std::fprintf(stdout, "\n");
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

// What records the program, by the flags: -np N preloads libgrainscope-mpi (under mpirun);
// --openmp names the OMPT tool libgrainscope-omp in OMP_TOOL_LIBRARIES (LLVM's libomp loads it);
// --pthreads preloads libgrainscope-pthread (the default without -np and --openmp). Any of them
// together, except --openmp with --pthreads: the pthread library would record libomp's own
// locks and condition variables as the program's.
struct Recorders {
  std::vector<std::string> preload;  // LD_PRELOAD, in this order before the user's own
  std::string omp_tool;              // OMP_TOOL_LIBRARIES, or empty
};

// "libgrainscope-mpi.so and libgrainscope-omp.so": the libraries that record, for messages.
std::string RecorderName(const Recorders& r) {
  std::vector<std::string> names;
  for (const std::string& lib : r.preload) names.push_back(fs::path(lib).filename().string());
  if (!r.omp_tool.empty()) names.push_back(fs::path(r.omp_tool).filename().string());
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " and " : ", ") + names[i];
  return out.empty() ? "grainscope" : out;
}

Result<Recorders> FindRecorders(const RecordOptions& o) {
  if (o.openmp && o.pthreads) {
    return InvalidArgument("--openmp and --pthreads cannot be combined: libgrainscope-pthread would record "
                           "libomp's own locks and condition variables as the program's; an OpenMP program "
                           "records its synchronisation through --openmp alone");
  }
  const bool several = (o.ranks > 0) + o.openmp + o.pthreads > 1;
  if (several && !o.library.empty())
    return InvalidArgument("--library names one wrapper library; with several recorders set "
                           "GRAINSCOPE_MPI_LIBRARY, GRAINSCOPE_OMP_LIBRARY or GRAINSCOPE_PTHREAD_LIBRARY instead");
  Recorders r;
  if (o.ranks > 0) {
    GS_ASSIGN_OR_RETURN(std::string mpi, FindLibrary(o.library, "libgrainscope-mpi", "GRAINSCOPE_MPI_LIBRARY"));
    r.preload.push_back(std::move(mpi));
  }
  if (o.pthreads || (o.ranks == 0 && !o.openmp)) {
    GS_ASSIGN_OR_RETURN(std::string pthread,
                        FindLibrary(o.library, "libgrainscope-pthread", "GRAINSCOPE_PTHREAD_LIBRARY"));
    r.preload.push_back(std::move(pthread));
  }
  if (o.openmp) {
    GS_ASSIGN_OR_RETURN(r.omp_tool, FindLibrary(o.library, "libgrainscope-omp", "GRAINSCOPE_OMP_LIBRARY"));
  }
  return r;
}

// The environment entries that load the recorders: LD_PRELOAD (before any the user set) and
// OMP_TOOL_LIBRARIES.
std::vector<std::string> RecorderEnvironment(const Recorders& r) {
  std::vector<std::string> env;
  if (!r.preload.empty()) {
    std::string preload;
    for (const std::string& lib : r.preload) preload += (preload.empty() ? "" : ":") + lib;
    if (const char* user = std::getenv("LD_PRELOAD"); user != nullptr && *user != '\0') preload += std::string(":") + user;
    env.push_back("LD_PRELOAD=" + preload);
  }
  if (!r.omp_tool.empty()) env.push_back("OMP_TOOL_LIBRARIES=" + r.omp_tool);
  return env;
}

// The run left no trace at `trace` (no file, or an empty directory): say why in the user's words
// rather than "cannot open" (issue 33: `record -np 2 -- /bin/true`). Ok when there is a trace.
Status NothingRecorded(const RecordOptions& o, const std::string& trace, const std::string& recorder) {
  std::error_code ec;
  const bool empty = !fs::exists(trace, ec) || (fs::is_directory(trace, ec) && fs::is_empty(trace, ec));
  if (!empty) return OkStatus();
  if (o.ranks > 0) {
    return FailedPrecondition(fmt::format(
        "{} made no MPI calls that {} records (it never called MPI_Init, or is not linked against this MPI "
        "library): nothing was recorded, no trace written", o.program[0], recorder));
  }
  return FailedPrecondition(fmt::format(
      "{} made no call that {} records (threads, locks, condition variables, barriers; OpenMP constructs with "
      "--openmp), or is statically linked or resets LD_PRELOAD: nothing was recorded, no trace written",
      o.program[0], recorder));
}

// A program of one process (no -np): libgrainscope-pthread preloaded, or the OMPT tool with
// --openmp; one .gst file, new (an existing file is never overwritten: a trace is one run).
Status RecordThreads(const RecordOptions& o, int* program_status) {
  GS_ASSIGN_OR_RETURN(const Recorders recorders, FindRecorders(o));
  std::string trace = o.trace;
  if (trace.empty()) {
    const std::string base = fmt::format("grainscope-{}-{}", fs::path(o.program[0]).filename().string(), getpid());
    trace = base + ".gst";
    for (int attempt = 2; HoldsFiles(trace); ++attempt) trace = fmt::format("{}-{}.gst", base, attempt);
  } else if (std::error_code ec; fs::exists(trace, ec)) {
    return FailedPrecondition(fmt::format("{} already exists: a trace is one run; name a new file with --trace", trace));
  }
  std::vector<std::string> env = RecorderEnvironment(recorders);
  env.push_back("GRAINSCOPE_TRACE=" + trace);
  GS_ASSIGN_OR_RETURN(int exit_code, Spawn(o.program, env));
  *program_status = exit_code;
  if (exit_code == 0) GS_RETURN_IF_ERROR(NothingRecorded(o, trace, RecorderName(recorders)));
  auto read = ReadTrace(trace);
  if (read.ok()) Summarize(trace, *read);
  if (exit_code != 0) {
    return FailedPrecondition(fmt::format("{} exited with status {}; the trace (if any) is in {}", o.program[0], exit_code, trace));
  }
  return read.ok() ? OkStatus() : read.status();
}

// Runs the program; *program_status is its exit status (grainscope record exits with it).
Status Record(const RecordOptions& o, int* program_status) {
  if (o.program.empty()) return InvalidArgument("no program to run: grainscope record [-np N] -- ./app args");
  if (o.ranks == 0) return RecordThreads(o, program_status);
  if (o.ranks < 0) return InvalidArgument("-np needs a positive number of ranks");
  GS_ASSIGN_OR_RETURN(const Recorders recorders, FindRecorders(o));
  GS_ASSIGN_OR_RETURN(const std::string trace, TraceDirectoryFor(o));
  std::vector<std::string> args = {o.mpirun};
  if (geteuid() == 0) args.push_back("--allow-run-as-root");  // mpirun refuses root without it
  args.insert(args.end(), {"--oversubscribe", "-np", std::to_string(o.ranks)});
  for (const std::string& entry : RecorderEnvironment(recorders)) args.insert(args.end(), {"-x", entry});
  args.insert(args.end(), {"-x", "GRAINSCOPE_TRACE=" + trace});
  args.insert(args.end(), o.program.begin(), o.program.end());
  GS_ASSIGN_OR_RETURN(int exit_code, Spawn(args));
  *program_status = exit_code;
  if (exit_code == 0) GS_RETURN_IF_ERROR(NothingRecorded(o, trace, RecorderName(recorders)));
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
      "record", "Run a program and record it: with -np N, an MPI program under mpirun with libgrainscope-mpi "
                "preloaded, one .gst stream per rank in one trace directory (grainscope record -np 4 -- ./app "
                "args); without, a threaded program with libgrainscope-pthread preloaded, its threads' locks, "
                "condition variables, barriers, creation and joins in one .gst file (grainscope record -- ./app "
                "args); --openmp records an OpenMP program through the OMPT tool instead. Hybrid programs: "
                "-np N --openmp (MPI + OpenMP) or -np N --pthreads (MPI + threads): each rank's threads are "
                "locations of that rank. Exits with the program's status");
  cmd->add_option("-n,--np", o->ranks, "number of MPI ranks (-np works too); without it the program runs as one "
                                       "threaded process");
  cmd->add_option("--trace", o->trace, "trace directory (MPI: new or empty) or file (threads: new); default "
                                       "grainscope-<program>-<pid>[.gst], with -2, -3, ... when taken");
  cmd->add_option("--library", o->library, fmt::format("the wrapper library (default: libgrainscope-mpi.so.{0}, libgrainscope-pthread.so.{0} or "
                                                       "libgrainscope-omp.so.{0} in the lib directory beside this "
                                                       "binary's)", GS_WRAPPER_SOVERSION));
  cmd->add_option("--mpirun", o->mpirun, "the MPI launcher (default: mpirun)");
  cmd->add_flag("--openmp", o->openmp, "record an OpenMP program's parallel regions, barriers, tasks and locks "
                                       "through the OMPT tool libgrainscope-omp (LLVM's libomp: clang -fopenmp; "
                                       "GCC's libgomp has no OMPT); with -np, every rank's threads (hybrid MPI+OpenMP)");
  cmd->add_flag("--pthreads", o->pthreads, "record the threads' locks, condition variables, barriers, creation and "
                                           "joins through libgrainscope-pthread: the default without -np and "
                                           "--openmp; with -np, in every rank too. Not with --openmp");
  cmd->add_option("program", o->program, "the program and its arguments, after --")->required();
  return [o] {
    int program_status = 0;
    const int rc = Run("record", [&]() -> Status { return Record(*o, &program_status); });
    return program_status != 0 ? program_status : rc;
  };
}

}  // namespace grainscope::cli
