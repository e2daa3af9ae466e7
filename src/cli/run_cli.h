// The grainscope command line as a function: `grainscope ARGS...` parsed and run, its exit code
// returned (kExitOk, kExitUsage, ... in cli/common.h). The binary's main calls it; the Python
// module (python/) too, with its output captured (CaptureOutput in cli/common.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace grainscope::cli {

// argv[0] is the program's name; argv may be rewritten in place (`record -np` is spelled --np).
int RunCli(int argc, char** argv);

// The long option names of `grainscope COMMAND` ("top", "all", ...), for callers that turn
// keyword arguments into options (python/); empty for a command that does not exist.
std::vector<std::string> CommandOptionNames(std::string_view command);

}  // namespace grainscope::cli
