// The grainscope command line: its subcommands, parsed and run (cli/run_cli.h).
#include "cli/run_cli.h"

#include <cstdio>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "base/numbers.h"
#include "cli/commands.h"
#include "cli/common.h"
#include "cli/version.h"

namespace grainscope::cli {

namespace {

// Each subcommand with the body that runs it once the command line parsed into it.
using Commands = std::vector<std::pair<CLI::App*, CommandBody>>;

// Every subcommand, in the order `grainscope --help` lists them.
Commands AddCommands(CLI::App& app) {
  Commands commands;
  auto add = [&](CommandBody (*adder)(CLI::App&)) {
    const size_t before = app.get_subcommands({}).size();
    CommandBody body = adder(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(body));
  };
  add(AddInfoCommand);
  add(AddDumpCommand);
  add(AddReportCommand);
  add(AddTaskGraphCommand);
  add(AddGanttCommand);
  add(AddCritPathCommand);
  add(AddReplayCommand);
  add(AddCompensateCommand);
  add(AddWaitsCommand);
  add(AddConvertCommand);
  add(AddScheduleCommand);
  add(AddPredictCommand);
  add(AddHtmlCommand);
  add(AddRecordCommand);
  return commands;
}

// `grainscope record -np N` takes mpirun's spelling; CLI11 knows only one-character short options.
void RespellRecordNp(int argc, char** argv) {
  for (int i = 2; i < argc && std::string_view(argv[1]) == "record" && std::string_view(argv[i]) != "--"; ++i) {
    if (std::string_view(argv[i]) == "-np") argv[i] = const_cast<char*>("--np");
  }
}

// "info, dump, ...": the commands, for the error about one that does not exist.
std::string CommandNames(const Commands& commands) {
  std::string known;
  for (const auto& [cmd, body] : commands) known += (known.empty() ? "" : ", ") + cmd->get_name();
  return known;
}

// The first argument names a command, or is an option (CLI11 reports those).
bool IsCommandOrOption(const Commands& commands, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return true;
  for (const auto& [cmd, body] : commands)
    if (cmd->get_name() == argv[1]) return true;
  return false;
}

}  // namespace

std::vector<std::string> CommandOptionNames(std::string_view command) {
  CLI::App app;
  std::vector<std::string> names;
  for (const auto& [cmd, body] : AddCommands(app)) {
    if (cmd->get_name() != command) continue;
    for (const CLI::Option* option : cmd->get_options())
      for (const std::string& name : option->get_lnames()) names.push_back(name);
  }
  return names;
}

int RunCli(int argc, char** argv) {
  CLI::App app{"grainscope: measure and explain the performance of parallel programs"};
  app.name("grainscope");
  app.require_subcommand(1);
  app.footer(std::string(kExitCodesHelp));
  app.set_version_flag("--version", "grainscope " + std::string(Version()) + " (commit " + std::string(Commit()) + ")");
  ClearThreadsOption();
  const Commands commands = AddCommands(app);
  RespellRecordNp(argc, argv);
  // CLI11 would say only "A subcommand is required": name what was given and what exists. The
  // names are built on every run and live until the command ends, as they always have: freed
  // before the command runs, they moved glibc's heap layout enough to raise `waits`' peak RSS on
  // the BT-MZ trace by 4 % (25 MB; the same with MALLOC_MMAP_THRESHOLD_ fixed).
  const std::string known = CommandNames(commands);
  if (!IsCommandOrOption(commands, argc, argv)) {
    PrintErrorLine("grainscope: unknown command '" + grainscope::EchoToken(argv[1]) + "' (commands: " + known +
                   "; see grainscope --help)");
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, like every other failure: what was wrong and where to look.
    std::string what = e.what();
    for (char& c : what)
      if (c == '\n') c = ' ';
    PrintErrorLine("grainscope: " + what + " (see grainscope --help)");
    return kExitUsage;
  }
  for (const auto& [cmd, body] : commands)
    if (cmd->parsed()) return body();
  return kExitUsage;
}

}  // namespace grainscope::cli
