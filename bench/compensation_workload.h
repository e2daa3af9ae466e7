// The compensation validation program (bench/compensation_validation.cc, issue 7 item 3): a
// producer thread runs tiny, heavily instrumented grains and after every batch sends a message
// to a consumer thread that waits for it (busy-waiting on a counter, marked as a receive), does a
// little work of its own and waits again. The consumer's run time is the producer's: the seed's
// case where one process waits for another, which per-location compensation gets wrong.
//
// Included once per build flavour: COMP_WORKLOAD_NAMESPACE names the namespace, so the benchmark
// links the instrumented build and the one compiled with GRAINSCOPE_DISABLE side by side.
#ifndef COMP_WORKLOAD_NAMESPACE
#define COMP_WORKLOAD_NAMESPACE comp_instrumented
#endif

#include <cstdint>

namespace COMP_WORKLOAD_NAMESPACE {

struct Options {
  int rounds = 2000;           // messages producer -> consumer (~5 ms runs)
  int grains_per_round = 40;   // tiny grains the producer runs before each message
  int work = 48;               // iterations of dependent arithmetic per grain (~110 ns)
  int consumer_work = 200;     // iterations the consumer works after each receive
  // The grains' arithmetic inlined into the grain loop (true) or in a function of its own (false,
  // the default). Inlined, the compiler generates different code for the two builds: in the
  // instrumented one the loop's floating-point value must survive the calls into the recording
  // library, which clobber every vector register, so GCC keeps it in a general-purpose register
  // and moves it to and from an SSE register in every iteration of the arithmetic. That slows
  // the grains' own work (by ~60 % here), a cost of the instrumentation that grows with the work,
  // not with the number of events, so no per-event compensation can remove it
  // (docs/compensation.md). Out of line, both builds run the same machine code for the work.
  bool inline_work = false;
};

// Times the program measures itself with steady_clock, the same code in both builds (a few reads
// per round, not per grain).
struct Outcome {
  int64_t span_ns = 0;              // from the common start to the consumer's last receive
  double round_ns = 0;              // median producer round, send to send (per grain: / grains_per_round)
  double mean_round_ns = 0;         // the same, mean: with the rounds a median ignores
  double consumer_wait_ns = 0;      // mean time the consumer spent in one receive
  double checksum = 0;
};

Outcome Run(const Options& options);

}  // namespace COMP_WORKLOAD_NAMESPACE
