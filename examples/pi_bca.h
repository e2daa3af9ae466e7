// The seed's pi approximation (Yadav 1989, chapter 5 and appendix C) as a broadcast-calculate-
// aggregate program on std::thread: grain 0 ("start") splits [0, 1] into five intervals and sends
// each worker its share; grains 1-5 ("worker k") sum 4 / (1 + x^2) over their share; grain 6
// ("aggregate") collects the partial sums. Messages keep the names SuperGlue generated
// ("superGlue0k": start -> worker k, "superGlue06": start -> aggregate, "superGluek6": worker k ->
// aggregate). Each processor is a thread that runs its grains in schedule order.
//
// This header is included once per build flavour: PI_BCA_NAMESPACE names the namespace, so the
// overhead benchmark can link the instrumented build and the one compiled with
// GRAINSCOPE_DISABLE side by side.
#ifndef PI_BCA_NAMESPACE
#define PI_BCA_NAMESPACE pi_bca
#endif

#include <cstdint>
#include <string>

namespace PI_BCA_NAMESPACE {

struct Options {
  int64_t intervals = 100'000;  // the seed's n
  int processors = 2;           // 2: the seed's schedule (appendix C); else round robin
  int grain_scale = 1;          // repeat each worker's sum this many times (bigger grains)
};

struct Outcome {
  double pi = 0;
  double seconds = 0;  // wall time of the grains, thread start to join
};

// Runs the program; an error message instead when the options are impossible.
Outcome Run(const Options& options);
std::string CheckOptions(const Options& options);

}  // namespace PI_BCA_NAMESPACE
