// What every grainscope subcommand shares: the trace argument, --format, -o, and the mapping of
// a failed Status to a one-line message and an exit code.
#pragma once

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

#include "base/output_target.h"
#include "base/status.h"
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
  bool force = false;  // -o may replace an existing output of its kind (base/output_target.h)
};

// Adds TRACE, --input-format, --format (restricted to `formats`), -o, --force and, when
// `with_unit`, --unit. Without `with_output`, the command defines -o itself (replay writes a
// trace there).
void AddCommonOptions(CLI::App& cmd, CommonOptions& o, const std::vector<std::string>& formats,
                      bool with_unit, bool with_output = true);

// Resolves --format and --unit into RenderOptions.
Result<RenderOptions> MakeRenderOptions(const CommonOptions& o);

// Accepts integers >= 0; `what` names the unit in the error ("nanoseconds").
CLI::Validator NonNegativeInteger(const std::string& what);
// A non-negative decimal with at most three fractional digits ("12", "10.43").
CLI::Validator NonNegativeDecimal(const std::string& what);

// --force, the same for every command that writes a file.
void AddForceOption(CLI::App& cmd, bool& force);
// The help of -o for a file output.
inline constexpr const char* kOutputHelp =
    "Write to this file instead of stdout (atomically; an existing file is replaced only with --force)";

// What -o may replace: --force, and never TRACE or one of `more_inputs`.
OutputOptions OutputPolicy(const CommonOptions& o, std::vector<std::string> more_inputs = {});

// Writes to stdout when `path` is "" or "-", else to the file `path` (base/output_target.h).
Status Emit(const std::string& content, const std::string& path, const OutputOptions& options = {});
// Writes to -o of `o` under OutputPolicy(o, more_inputs).
Status Emit(const std::string& content, const CommonOptions& o, std::vector<std::string> more_inputs = {});

// Runs `body`; on failure prints "grainscope <command>: <message>" to stderr. Returns the exit code.
int Run(std::string_view command, const std::function<Status()>& body);

}  // namespace grainscope::cli
