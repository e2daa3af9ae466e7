// Each subcommand registers itself on the app and returns the body to run when it was chosen.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace grainscope::cli {

using CommandBody = std::function<int()>;

CommandBody AddInfoCommand(CLI::App& app);
CommandBody AddDumpCommand(CLI::App& app);
CommandBody AddReportCommand(CLI::App& app);
CommandBody AddTaskGraphCommand(CLI::App& app);
CommandBody AddGanttCommand(CLI::App& app);
CommandBody AddCritPathCommand(CLI::App& app);
CommandBody AddReplayCommand(CLI::App& app);
CommandBody AddCompensateCommand(CLI::App& app);
CommandBody AddWaitsCommand(CLI::App& app);
CommandBody AddConvertCommand(CLI::App& app);
CommandBody AddScheduleCommand(CLI::App& app);
CommandBody AddPredictCommand(CLI::App& app);
CommandBody AddRecordCommand(CLI::App& app);
CommandBody AddHtmlCommand(CLI::App& app);

}  // namespace grainscope::cli
