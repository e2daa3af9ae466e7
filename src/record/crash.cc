#include "record/crash.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <atomic>

#include "record/flusher.h"
#include "record/runtime.h"
#include "record/stream.h"

namespace grainscope::record {
namespace {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT, SIGQUIT};
constexpr int kSignalCount = sizeof kSignals / sizeof kSignals[0];

struct sigaction g_previous[kSignalCount];
bool g_installed[kSignalCount];
std::atomic<pid_t> g_handling_tid{0};

int IndexOf(int sig) {
  for (int i = 0; i < kSignalCount; ++i)
    if (kSignals[i] == sig) return i;
  return -1;
}

void RestoreAndRaise(int sig) {
  const int i = IndexOf(sig);
  if (i >= 0 && g_installed[i]) {
    sigaction(sig, &g_previous[i], nullptr);
  } else {
    signal(sig, SIG_DFL);
  }
  // The signal is blocked while its handler runs: it is delivered again when the handler returns
  // (a fault also simply recurs), now to the previous disposition.
  raise(sig);
}

// A write another thread was doing when the signal came completes on its own; one the crashing
// thread itself was doing is redone here. Returns the event block it redid, if any.
void CompleteWritesOfThisThread(pid_t self, uint32_t* done_stream, uint32_t* done_sequence) {
  auto complete = [&](const WriterSlot& slot) {
    if (slot.tid.load(std::memory_order_relaxed) != self || slot.phase.load(std::memory_order_acquire) != WriterSlot::kReserved) return;
    g_sink.Complete(slot);
    if (slot.header.type == gst::kChunkEventBlock) {
      *done_stream = slot.header.stream;
      *done_sequence = slot.header.sequence;
    }
  };
  complete(FlusherSlot());
  const uint32_t n = g_stream_count.load(std::memory_order_acquire);
  for (uint32_t i = 0; i < n; ++i) complete(g_streams[i]->writer);
}

void OnFatalSignal(int sig, siginfo_t*, void*) {
  const pid_t self = CurrentTid();
  pid_t expected = 0;
  if (!g_handling_tid.compare_exchange_strong(expected, self)) {
    if (expected == self) {  // a second fatal signal inside the handler: give up on the trace
      signal(sig, SIG_DFL);
      raise(sig);
      return;
    }
    // Another thread is saving the trace and will end the process; wait for it.
    for (;;) pause();
  }
  if (g_state.load(std::memory_order_acquire) == kRecording) {
    g_crashing.store(true, std::memory_order_seq_cst);
    uint32_t done_stream = UINT32_MAX, done_sequence = UINT32_MAX;
    CompleteWritesOfThisThread(self, &done_stream, &done_sequence);
    DrainStreamsForCrash(done_stream, done_sequence);
    CloseForCrash(sig);
  }
  RestoreAndRaise(sig);
}

}  // namespace

void InstallCrashHandlers() {
  for (int i = 0; i < kSignalCount; ++i) {
    if (g_installed[i]) continue;
    struct sigaction previous {};
    if (sigaction(kSignals[i], nullptr, &previous) != 0) continue;
    // A signal the program ignores stays ignored; one it handles already is left to it (its
    // handler may shut down cleanly, and exit() then ends the trace normally).
    if (previous.sa_handler != SIG_DFL) continue;
    struct sigaction action {};
    action.sa_sigaction = OnFatalSignal;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    if (sigaction(kSignals[i], &action, &g_previous[i]) == 0) g_installed[i] = true;
  }
}

}  // namespace grainscope::record
