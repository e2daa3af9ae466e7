// The grainscope command line as a function: `grainscope ARGS...` parsed and run, its exit code
// returned (kExitOk, kExitUsage, ... in cli/common.h). The binary's main calls it; the Python
// module (python/) too, with its output captured (CaptureOutput in cli/common.h).
#pragma once

namespace grainscope::cli {

// argv[0] is the program's name; argv may be rewritten in place (`record -np` is spelled --np).
int RunCli(int argc, char** argv);

}  // namespace grainscope::cli
