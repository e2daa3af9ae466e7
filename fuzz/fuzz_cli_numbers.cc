// The parsers behind the CLI's numeric options: integers, durations in a unit ("1.5" ms),
// time units, processor ranges, network and collective models. Checks the invariants their
// callers rely on besides "no crash": a parsed duration is non-negative and exact.
#include <cmath>
#include <cstdlib>

#include "analysis/replay/network.h"
#include "base/numbers.h"
#include "fuzz/fuzz_util.h"
#include "report/units.h"
#include "schedule/portfolio.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace grainscope;
  const std::string_view text = fuzz::AsText(data, size);
  if (auto n = ParseNonNegativeInt(text)) Check(*n >= 0);
  for (int64_t unit : {int64_t{1}, int64_t{1000}, int64_t{1'000'000}, int64_t{1'000'000'000}}) {
    if (auto ns = ParseScaledNs(text, unit)) {
      Check(*ns >= 0);
      // A whole number of units parses to exactly that many units.
      if (text.find('.') == std::string_view::npos) Check(*ns % unit == 0);
    }
  }
  if (auto ns = ParseDurationNs(text)) Check(*ns >= 0);
  if (auto x = ParseFiniteDouble(text)) Check(std::isfinite(*x));
  Check(EchoToken(text).size() <= 64);
  (void)ParseTimeUnit(text);
  (void)ParseOutputFormat(text);
  if (auto range = ParseProcessorRange(text)) {
    Check(range->first >= 1 && range->first <= range->second && range->second <= kMaxProcessors);
  }
  NetworkModel model;
  (void)ParseLogGP(text, model);
  (void)ParseNetworkKind(text);
  (void)ParseCollectivePhase(text);
  return 0;
}
