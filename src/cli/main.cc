// grainscope: measure and explain the performance of parallel programs.
#include "cli/run_cli.h"

int main(int argc, char** argv) { return grainscope::cli::RunCli(argc, argv); }
