// What every grainscope subcommand shares: the trace argument, --format, -o, and the mapping of
// a failed Status to a one-line message and an exit code.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/output_target.h"
#include "base/status.h"
#include "base/text_sink.h"
#include "format/read_options.h"
#include "model/trace.h"
#include "report/render.h"

namespace grainscope::cli {

// Exit codes (also printed by --help).
inline constexpr int kExitOk = 0;
inline constexpr int kExitBadInput = 1;  // the trace is malformed or cannot be analysed this way
inline constexpr int kExitUsage = 2;     // bad command line
inline constexpr int kExitIo = 3;        // a file could not be read or written
inline constexpr std::string_view kExitCodesHelp =
    "Exit codes: 0 success, 1 bad or unanalysable input, 2 bad command line, 3 file not readable "
    "or writable.\n";

struct CommonOptions {
  std::string trace;
  std::string input_format = "auto";
  std::string format = "text";
  std::string output;  // empty: stdout
  std::string unit = "ms";
  uint64_t top = 20;   // rows of each long table in text output
  bool all = false;    // --all: every row
  bool force = false;  // -o may replace an existing output of its kind (base/output_target.h)
  bool strict = false; // --strict: refuse what the readers would repair (format/read_options.h)
};

// Adds TRACE, --input-format, --strict, --format (restricted to `formats`), -o, --force, --top/--all and,
// when `with_unit`, --unit. Without `with_output`, the command defines -o itself (replay writes a
// trace there).
void AddCommonOptions(CLI::App& cmd, CommonOptions& o, const std::vector<std::string>& formats,
                      bool with_unit, bool with_output = true);

// Resolves --format and --unit into RenderOptions.
Result<RenderOptions> MakeRenderOptions(const CommonOptions& o);

// --top N and --all, for commands that do not take every common option.
void AddTopOptions(CLI::App& cmd, uint64_t& top, bool& all);

// Numeric options are read by our own strict parsers (base/numbers.h), so that every one rejects
// NaN, infinities, negative values and overflow alike, with "expected <what>, got '<value>'" (a
// long value shortened). Every duration an option takes is read by base/numbers.h's duration
// parser, so every one takes the units the README promises:
// --NAME DURATION into `ns`: "5us", "1.5ms", "2s", or a plain number of nanoseconds.
CLI::Option* AddDurationOption(CLI::App& cmd, const std::string& name, int64_t& ns, const std::string& help);
// The same to 1/1000 ns ("10.25", "10ns", "0.5us"): a per-event overhead. Whether it was given:
// the option's count().
CLI::Option* AddFineDurationOption(CLI::App& cmd, const std::string& name, double& ns, const std::string& help);
// The same in seconds: "30" (s), "500ms", "2.5s" (a time limit).
CLI::Option* AddSecondsOption(CLI::App& cmd, const std::string& name, double& seconds, const std::string& help);
// --NAME N into `value`: an integer in [min, max]; `what` names it in errors ("bytes").
CLI::Option* AddIntegerOption(CLI::App& cmd, const std::string& name, uint64_t& value, uint64_t min, uint64_t max,
                              const std::string& what, const std::string& help);
// --NAME X into `value`: a finite number in [min, max] (or (min, max] when `min_excluded`).
CLI::Option* AddNumberOption(CLI::App& cmd, const std::string& name, double& value, double min, double max,
                             bool min_excluded, const std::string& help);

// --strict and --threads, the same for every command that reads a trace. --threads N is how many
// threads read a trace of several files, run the per-location parts of assembling and analysing
// it and format long outputs (base/parallel.h); Run applies it for the command's body.
void AddReadOptions(CLI::App& cmd, bool& strict);
// Forgets a --threads an earlier command line gave: RunCli calls it before parsing, since the
// Python module parses one command line after another in one process, and one that failed to
// parse (or asked for --help) never reached Run.
void ClearThreadsOption();

// Reads a trace the command analyses and keeps its reader's diagnostics as notes in `r.notes`
// (prefixed with the path when it is not the command's main trace, `r.source`), for JSON output
// and for the "note:" lines Emit prints.
Result<Trace> LoadTrace(const std::string& path, std::string_view format, const ReadOptions& read, RenderOptions& r);

// Prints each note as "note: <note>" on stderr (after clearing the progress bar).
void PrintNotes(const std::vector<std::string>& notes);

// --force, the same for every command that writes a file.
void AddForceOption(CLI::App& cmd, bool& force);
// The help of -o for a file output.
inline constexpr const char* kOutputHelp =
    "Write to this file instead of stdout (atomically; an existing file is replaced only with --force)";

// What an output may replace: with `force`, an output of its own kind; never one of `inputs`, nor
// a path an input occupies besides itself (an OTF2 anchor's .def file and directory:
// format/trace_writer.h's PathsBesides).
OutputOptions OutputPolicy(bool force, std::vector<std::string> inputs);
// What -o may replace: --force, and never TRACE or one of `more_inputs`.
OutputOptions OutputPolicy(const CommonOptions& o, std::vector<std::string> more_inputs = {});

// Prints `notes` on stderr, then writes what `write` produces while it produces it (base/
// text_sink.h) to stdout when `path` is "" or "-", else to the file `path` as `options` allow
// (base/output_target.h; a file is complete or not there). Reports as long as the trace (a
// critical path, a Gantt chart, every wait in JSON or CSV) are written so: memory does not grow
// with the output.
using TextWriter = std::function<Status(TextSink& out)>;
Status EmitStream(const TextWriter& write, const std::string& path, const std::vector<std::string>& notes = {},
                  const OutputOptions& options = {});
// The same for -o of `o`, under OutputPolicy(o, more_inputs).
Status EmitStream(const TextWriter& write, const CommonOptions& o, const std::vector<std::string>& notes,
                  std::vector<std::string> more_inputs = {});
// The same for an output already made: `content`.
Status Emit(const std::string& content, const std::string& path, const std::vector<std::string>& notes = {},
            const OutputOptions& options = {});
Status Emit(const std::string& content, const CommonOptions& o, const std::vector<std::string>& notes,
            std::vector<std::string> more_inputs = {});

// Runs `body`; on failure prints "<program> <command>: <message>" to stderr (unless `say`, when
// given, says not to: another process of an MPI job prints it). Returns the exit code.
int Run(std::string_view command, const std::function<Status()>& body, std::string_view program = "grainscope",
        const std::function<bool(const Status&)>& say = nullptr);

// While a capture is set (RunCli called from the Python module), what Emit would write to stdout
// is appended to `out`, and the "note:" and failure lines to `err`, instead of the streams; no
// progress bar is drawn. Not thread-safe: one command at a time. nullptr, nullptr ends it.
void CaptureOutput(std::string* out, std::string* err);
// A line for stderr (or the capture): `line` and a newline.
void PrintErrorLine(std::string_view line);

}  // namespace grainscope::cli
