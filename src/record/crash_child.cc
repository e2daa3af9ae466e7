// The program the crash tests run: records a known number of events on two threads, then ends in
// the way named by argv[1]:
//   segv   writes through a null pointer inside region "doomed" (main thread)
//   abort  calls abort() inside "doomed"
//   exit   calls exit(3) inside "doomed" (from a region, without returning from main)
//   wait   prints "ready" and sleeps inside "doomed" until the parent kills it (SIGTERM, SIGKILL)
//   worker_segv  a worker thread faults while the main thread keeps recording
// Before that: the main thread records 1000 "body" pairs, a joined worker thread 500 pairs and a
// message "result" that the main thread receives.
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "grainscope/trace.hpp"

namespace {

volatile int* g_null = nullptr;

// A real fault, also in sanitizer builds (UBSan would stop at the null store first).
__attribute__((no_sanitize("undefined"))) void Fault() { *g_null = 1; }

}  // namespace

int main(int argc, char** argv) {
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);  // the test provokes crashes on purpose
  const char* mode = argc > 1 ? argv[1] : "segv";

  std::thread worker([] {
    gs_thread_name("worker");
    for (int i = 0; i < 500; ++i) {
      GS_SCOPE("work");
    }
    GS_SEND("result", 8, 0);
  });
  gs_thread_name("main");
  for (int i = 0; i < 1000; ++i) {
    GS_SCOPE("body");
  }
  worker.join();
  {
    GS_RECV(in, "result");
    in.received(8, 1);
  }

  if (std::strcmp(mode, "worker_segv") == 0) {
    std::thread([] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      Fault();
    }).detach();
    for (;;) {
      GS_SCOPE("spin");
    }
  }

  GS_SCOPE("doomed");
  if (std::strcmp(mode, "segv") == 0) Fault();
  if (std::strcmp(mode, "abort") == 0) std::abort();
  if (std::strcmp(mode, "exit") == 0) std::exit(3);
  if (std::strcmp(mode, "wait") == 0) {
    std::printf("ready\n");
    std::fflush(stdout);
    for (;;) pause();
  }
  return 0;
}
