#include "cli/common.h"

#include <unistd.h>

#include <cstdio>

#include <fmt/format.h>

#include "base/numbers.h"
#include "cli/progress.h"
#include "format/trace_reader.h"

namespace grainscope::cli {

void AddCommonOptions(CLI::App& cmd, CommonOptions& o, const std::vector<std::string>& formats,
                      bool with_unit, bool with_output) {
  cmd.add_option("TRACE", o.trace, "Trace file to read")->required();
  std::vector<std::string> inputs;
  for (std::string_view f : ReadableFormats()) inputs.emplace_back(f);
  cmd.add_option("--input-format", o.input_format, "Format of TRACE (default: detected from its content)")
      ->check(CLI::IsMember(inputs));
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
  cmd.footer(std::string(kExitCodesHelp));
}

namespace {

// A CLI11 check: `parses` accepts the value, else "expected <expected>, got '<value>'".
template <typename Parse>
CLI::Validator NumberCheck(std::string expected, Parse parses) {
  return CLI::Validator(
      [expected, parses](std::string& value) -> std::string {
        if (parses(value)) return {};
        return "expected " + expected + ", got '" + value + "'";
      },
      "NS>=0");
}

}  // namespace

CLI::Validator NonNegativeInteger(const std::string& what) {
  return NumberCheck("a non-negative integer number of " + what,
                     [](const std::string& v) { return ParseNonNegativeInt(v).has_value(); });
}

CLI::Validator NonNegativeDecimal(const std::string& what) {
  return NumberCheck("a non-negative number of " + what + " with at most 3 decimals",
                     [](const std::string& v) { return ParseMilliDecimal(v).has_value(); });
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
  return r;
}

void AddForceOption(CLI::App& cmd, bool& force) {
  cmd.add_flag("--force", force,
               "Replace an existing output of the same kind: a regular file (-o), a .gst trace, a complete OTF2 "
               "archive. Never an input, a link, or a directory holding anything else");
}

OutputOptions OutputPolicy(const CommonOptions& o, std::vector<std::string> more_inputs) {
  more_inputs.insert(more_inputs.begin(), o.trace);
  return OutputOptions{o.force, std::move(more_inputs)};
}

Status Emit(const std::string& content, const CommonOptions& o, std::vector<std::string> more_inputs) {
  return Emit(content, o.output, OutputPolicy(o, std::move(more_inputs)));
}

Status Emit(const std::string& content, const std::string& path, const OutputOptions& options) {
  if (!path.empty() && path != "-") return WriteOutputFile(path, content, options);
  if (std::fwrite(content.data(), 1, content.size(), stdout) != content.size() || std::fflush(stdout) != 0)
    return IoError("cannot write to standard output");
  return OkStatus();
}

int Run(std::string_view command, const std::function<Status()>& body) {
  Status s;
  {
    ProgressDisplay progress(STDERR_FILENO);  // cleared before anything below is printed
    s = body();
  }
  if (s.ok()) return kExitOk;
  std::string message = s.message();
  for (char& c : message)
    if (c == '\n') c = ' ';
  fmt::print(stderr, "grainscope {}: {}\n", command, message);
  switch (s.code()) {
    case StatusCode::kInvalidArgument: return kExitUsage;
    case StatusCode::kIoError: return kExitIo;
    default: return kExitBadInput;
  }
}

}  // namespace grainscope::cli
