// Saving the trace when the program dies of a signal (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
// SIGTERM, SIGINT, SIGQUIT): the handler writes every event recorded before the signal with
// pwrite(2) only, ends the trace, restores the program's previous disposition and raises the
// signal again, so the process dies (or the program's own handler runs) as it would have.
#pragma once

namespace grainscope::record {

void InstallCrashHandlers();

// Ends the trace from the crash handler (defined in runtime.cc): final clock sample, end chunk.
void CloseForCrash(int signal);

}  // namespace grainscope::record
