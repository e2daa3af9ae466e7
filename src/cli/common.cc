#include "cli/common.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "base/numbers.h"
#include "base/parallel.h"
#include "cli/progress.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"
#include "model/diagnostic_kinds.h"

namespace grainscope::cli {
namespace {

// --threads, for Run (AddReadOptions); 0 when not given.
uint64_t g_threads = 0;

// The progress bar of the running command (Run): cleared before anything is printed on stderr.
ProgressDisplay* g_progress = nullptr;

void StopProgress() {
  if (g_progress != nullptr) g_progress->Stop();
}

}  // namespace

void AddTopOptions(CLI::App& cmd, uint64_t& top, bool& all) {
  AddIntegerOption(cmd, "--top", top, 1, std::numeric_limits<uint32_t>::max(), "rows",
                   "Rows of each long table in text output (JSON and CSV are always complete)");
  cmd.add_flag("--all", all, "Every row of every table in text output");
}

void AddCommonOptions(CLI::App& cmd, CommonOptions& o, const std::vector<std::string>& formats,
                      bool with_unit, bool with_output) {
  cmd.add_option("TRACE", o.trace, "Trace file to read")->required();
  std::vector<std::string> inputs;
  for (std::string_view f : ReadableFormats()) inputs.emplace_back(f);
  cmd.add_option("--input-format", o.input_format, "Format of TRACE (default: detected from its content)")
      ->check(CLI::IsMember(inputs));
  AddReadOptions(cmd, o.strict);
  cmd.add_option("-f,--format", o.format, "Output format")
      ->check(CLI::IsMember(formats))
      ->capture_default_str();
  if (with_output) cmd.add_option("-o,--output", o.output, kOutputHelp);
  AddForceOption(cmd, o.force);
  if (with_unit) {
    cmd.add_option("--unit", o.unit, "Integer time unit of the seed file format")
        ->check(CLI::IsMember({"s", "ms", "us", "ns"}))
        ->capture_default_str();
  }
  AddTopOptions(cmd, o.top, o.all);
  cmd.footer(std::string(kExitCodesHelp));
}

namespace {

// A CLI11 check: `parses` accepts the value, else "expected <expected>, got '<value>'".
template <typename Parse>
CLI::Validator NumberCheck(std::string expected, Parse parses) {
  return CLI::Validator(
      [expected, parses](std::string& value) -> std::string {
        if (parses(value)) return {};
        return "expected " + expected + ", got '" + EchoToken(value) + "'";
      },
      "NS>=0");
}

// An option whose value `parse` turns into the variable, or an error saying what was expected.
template <typename T, typename Parse>
CLI::Option* AddParsedOption(CLI::App& cmd, const std::string& name, T& value, std::string expected,
                             Parse parse, const std::string& help, std::string type_name) {
  const std::string shown = name.substr(name.rfind(',') + 1);  // "-p,--processors": --processors
  CLI::Option* opt = cmd.add_option_function<std::string>(
      name,
      [&value, shown, expected, parse](const std::string& text) {
        const std::optional<T> parsed = parse(text);
        if (!parsed) throw CLI::ValidationError(shown, "expected " + expected + ", got '" + EchoToken(text) + "'");
        value = *parsed;
      },
      help);
  opt->type_name(std::move(type_name));
  return opt;
}

// "1.5" for 1.5, "2" for 2.0: how a default or bound appears in help and errors.
std::string ShortNumber(double v) { return fmt::format("{}", v); }

}  // namespace

namespace {
constexpr const char* kDurationExpected = "a duration >= 0 such as 250 (ns), 5us, 1.5ms or 2s";
}  // namespace

CLI::Option* AddDurationOption(CLI::App& cmd, const std::string& name, int64_t& ns, const std::string& help) {
  return AddParsedOption(cmd, name, ns, kDurationExpected, [](const std::string& v) { return ParseDurationNs(v); },
                         help, "DURATION")
      ->default_str(fmt::format("{}", ns));
}

CLI::Option* AddFineDurationOption(CLI::App& cmd, const std::string& name, double& ns, const std::string& help) {
  return AddParsedOption(cmd, name, ns, "a duration >= 0 to 1/1000 ns such as 14.25 (ns), 10ns or 0.5us",
                         [](const std::string& v) { return ParseFineDurationNs(v); }, help, "DURATION");
}

CLI::Option* AddSecondsOption(CLI::App& cmd, const std::string& name, double& seconds, const std::string& help) {
  return AddParsedOption(
      cmd, name, seconds, "a duration from 0 to 1e9 s such as 30 (s), 500ms or 2.5s",
      [](const std::string& v) -> std::optional<double> {
        const std::optional<int64_t> ns = ParseDurationNs(v, 1'000'000'000);
        if (!ns || *ns > 1'000'000'000'000'000'000) return std::nullopt;
        return static_cast<double>(*ns) / 1e9;
      },
      help, "DURATION");
}

CLI::Option* AddIntegerOption(CLI::App& cmd, const std::string& name, uint64_t& value, uint64_t min, uint64_t max,
                              const std::string& what, const std::string& help) {
  const std::string expected = fmt::format("a whole number of {} from {} to {}", what, min, max);
  return AddParsedOption(
             cmd, name, value, expected,
             [min, max](const std::string& v) -> std::optional<uint64_t> {
               const std::optional<int64_t> n = ParseNonNegativeInt(v);
               if (!n || static_cast<uint64_t>(*n) < min || static_cast<uint64_t>(*n) > max) return std::nullopt;
               return static_cast<uint64_t>(*n);
             },
             help, "N")
      ->default_str(fmt::format("{}", value));
}

CLI::Option* AddNumberOption(CLI::App& cmd, const std::string& name, double& value, double min, double max,
                             bool min_excluded, const std::string& help) {
  const std::string expected =
      max == std::numeric_limits<double>::max()
          ? fmt::format("a number {} {}", min_excluded ? ">" : ">=", ShortNumber(min))
          : fmt::format("a number from {} to {}{}", ShortNumber(min), ShortNumber(max), min_excluded ? ", above the first" : "");
  return AddParsedOption(
             cmd, name, value, expected,
             [min, max, min_excluded](const std::string& v) -> std::optional<double> {
               const std::optional<double> x = ParseFiniteDouble(v);
               if (!x || *x < min || *x > max || (min_excluded && *x == min)) return std::nullopt;
               return x;
             },
             help, "X")
      ->default_str(ShortNumber(value));
}

Result<RenderOptions> MakeRenderOptions(const CommonOptions& o) {
  RenderOptions r;
  std::optional<OutputFormat> f = ParseOutputFormat(o.format);
  if (!f) return InvalidArgument(fmt::format("unknown output format '{}'", o.format));
  std::optional<int64_t> unit = ParseTimeUnit(o.unit);
  if (!unit) return InvalidArgument(fmt::format("unknown time unit '{}'", o.unit));
  r.format = *f;
  r.unit_ns = *unit;
  r.source = o.trace;
  r.top = o.all ? 0 : static_cast<size_t>(o.top);
  return r;
}

void ClearThreadsOption() { g_threads = 0; }

void AddReadOptions(CLI::App& cmd, bool& strict) {
  cmd.add_flag("--strict", strict,
               "Refuse a trace with defects the reader would repair and count (improper nesting, a "
               "missing OTF2 location file) instead of analysing it");
  AddIntegerOption(cmd, "--threads", g_threads, 0, kMaxThreads, "threads",
                   "Threads for reading a trace of several files, the per-location parts of the analysis and "
                   "formatting long outputs (0: GRAINSCOPE_THREADS, else every core); the answer is the same, byte "
                   "for byte, whatever N");
}

Result<Trace> LoadTrace(const std::string& path, std::string_view format, const ReadOptions& read, RenderOptions& r) {
  GS_ASSIGN_OR_RETURN(Trace trace, ReadTrace(path, format, read));
  for (std::string& note : DiagnosticNotes(trace.diagnostics()))
    r.notes.push_back(path == r.source ? std::move(note) : fmt::format("{}: {}", path, note));
  return trace;
}

namespace {
std::string* g_capture_out = nullptr;
std::string* g_capture_err = nullptr;
}  // namespace

void CaptureOutput(std::string* out, std::string* err) {
  g_capture_out = out;
  g_capture_err = err;
}

void PrintErrorLine(std::string_view line) {
  if (g_capture_err != nullptr) {
    *g_capture_err += fmt::format("{}\n", line);
  } else {
    fmt::print(stderr, "{}\n", line);
  }
}

void PrintNotes(const std::vector<std::string>& notes) {
  if (notes.empty()) return;
  if (g_capture_err != nullptr) {
    for (const std::string& note : notes) *g_capture_err += fmt::format("note: {}\n", note);
    return;
  }
  StopProgress();
  for (const std::string& note : notes) fmt::print(stderr, "note: {}\n", note);
  std::fflush(stderr);
}

void AddForceOption(CLI::App& cmd, bool& force) {
  cmd.add_flag("--force", force,
               "Replace an existing output of the same kind: a regular file (-o), a .gst trace, a complete OTF2 "
               "archive. Never an input, a link, or a directory holding anything else");
}

OutputOptions OutputPolicy(bool force, std::vector<std::string> inputs) {
  return OutputOptions{force, std::move(inputs), PathsBesides};
}

OutputOptions OutputPolicy(const CommonOptions& o, std::vector<std::string> more_inputs) {
  more_inputs.insert(more_inputs.begin(), o.trace);
  return OutputPolicy(o.force, std::move(more_inputs));
}

Status EmitStream(const TextWriter& write, const CommonOptions& o, const std::vector<std::string>& notes,
                  std::vector<std::string> more_inputs) {
  return EmitStream(write, o.output, notes, OutputPolicy(o, std::move(more_inputs)));
}

Status EmitStream(const TextWriter& write, const std::string& path, const std::vector<std::string>& notes,
                  const OutputOptions& options) {
  PrintNotes(notes);
  if (!path.empty() && path != "-") return WriteOutputStream(path, write, options);
  if (g_capture_out != nullptr) {
    TextSink sink(*g_capture_out);
    return write(sink);
  }
  std::fflush(stdout);
  TextSink sink(STDOUT_FILENO, "standard output");
  const Status written = write(sink);
  const Status closed = sink.Close();
  GS_RETURN_IF_ERROR(written);
  return closed;
}

Status Emit(const std::string& content, const CommonOptions& o, const std::vector<std::string>& notes,
            std::vector<std::string> more_inputs) {
  return Emit(content, o.output, notes, OutputPolicy(o, std::move(more_inputs)));
}

Status Emit(const std::string& content, const std::string& path, const std::vector<std::string>& notes,
            const OutputOptions& options) {
  auto write = [&](TextSink& out) {
    out.Append(content);
    return OkStatus();
  };
  return EmitStream(write, path, notes, options);
}

int Run(std::string_view command, const std::function<Status()>& body, std::string_view program,
        const std::function<bool(const Status&)>& say) {
  // --threads of this command only (the Python module runs one command after another).
  SetThreads(static_cast<unsigned>(g_threads));
  g_threads = 0;
  struct ClearThreads {
    ~ClearThreads() { SetThreads(0); }
  } clear_threads;
  Status s;
  if (g_capture_err != nullptr) {
    s = body();
  } else {
    ProgressDisplay progress(STDERR_FILENO);  // cleared before anything below is printed
    g_progress = &progress;
    s = body();
    g_progress = nullptr;
  }
  if (s.ok()) return kExitOk;
  std::string message = s.message();
  for (char& c : message)
    if (c == '\n') c = ' ';
  if (!say || say(s)) PrintErrorLine(fmt::format("{} {}: {}", program, command, message));
  switch (s.code()) {
    case StatusCode::kInvalidArgument: return kExitUsage;
    case StatusCode::kIoError: return kExitIo;
    default: return kExitBadInput;
  }
}

}  // namespace grainscope::cli
