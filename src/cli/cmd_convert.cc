#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/common.h"
#include "format/trace_reader.h"
#include "format/trace_writer.h"

namespace grainscope::cli {

CommandBody AddConvertCommand(CLI::App& app) {
  struct Flags {
    std::string in, out, input_format = "auto", to = "auto";
    bool force = false;
    bool strict = false;
  };
  auto f = std::make_shared<Flags>();
  CLI::App* cmd = app.add_subcommand(
      "convert", fmt::format("Convert a trace between formats: IN in any format grainscope reads, OUT chosen by its "
                             "extension ({}) or --to; OUT is complete or not there at all, and an existing trace "
                             "there is replaced only with --force",
                             OutputExtensionsHelp()));
  cmd->add_option("IN", f->in, "Trace to read")->required();
  cmd->add_option("OUT", f->out, "Trace to write")->required();
  std::vector<std::string> inputs, outputs;
  for (std::string_view s : ReadableFormats()) inputs.emplace_back(s);
  for (std::string_view s : WritableFormats()) outputs.emplace_back(s);
  cmd->add_option("--input-format", f->input_format, "Format of IN (default: detected from its content)")
      ->check(CLI::IsMember(inputs));
  AddReadOptions(*cmd, f->strict);
  cmd->add_option("--to", f->to, "Format of OUT (default: from its extension)")->check(CLI::IsMember(outputs));
  AddForceOption(*cmd, f->force);
  cmd->footer(std::string(kExitCodesHelp));
  return [f] {
    return Run("convert", [&]() -> Status {
      RenderOptions reader;  // collects the trace's notes
      reader.source = f->in;
      GS_ASSIGN_OR_RETURN(Trace trace, LoadTrace(f->in, f->input_format, ReadOptions{f->strict}, reader));
      GS_RETURN_IF_ERROR(WriteTrace(trace, f->out, f->to, OutputPolicy(f->force, {f->in}), &reader.notes));
      PrintNotes(reader.notes);
      fmt::print("{}: {} events on {} locations, {} messages -> {}\n", f->in, trace.event_count(),
                 trace.locations().size(), trace.messages().size(), f->out);
      return OkStatus();
    });
  };
}

}  // namespace grainscope::cli
