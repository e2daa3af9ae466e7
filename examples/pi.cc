// example_pi: the seed's pi approximation (pi_bca.h) with the C++ recording API.
//
//   GRAINSCOPE_TRACE=pi.gst build/bin/example_pi
//   build/bin/grainscope report pi.gst
//
// Options: --intervals N (100000), --processors P (2, the seed's schedule), --grain-scale S (1).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pi_bca.h"

int main(int argc, char** argv) {
  pi_bca::Options o;
  for (int i = 1; i < argc; ++i) {
    const bool has_value = i + 1 < argc;
    if (std::strcmp(argv[i], "--intervals") == 0 && has_value) {
      o.intervals = std::atoll(argv[++i]);
    } else if (std::strcmp(argv[i], "--processors") == 0 && has_value) {
      o.processors = std::atoi(argv[++i]);
    } else if (std::strcmp(argv[i], "--grain-scale") == 0 && has_value) {
      o.grain_scale = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr, "usage: %s [--intervals N] [--processors 1-7] [--grain-scale S]\n", argv[0]);
      return 2;
    }
  }
  if (const std::string problem = pi_bca::CheckOptions(o); !problem.empty()) {
    std::fprintf(stderr, "%s: %s\n", argv[0], problem.c_str());
    return 2;
  }
  const pi_bca::Outcome out = pi_bca::Run(o);
  std::printf("pi approximation %20.15f\n", out.pi);  // the seed's df6 prints this line
  return 0;
}
