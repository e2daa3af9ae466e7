// Damaged copies of a real recorded trace (examples/traces/pi.gst, the pi example recorded by our
// runtime): cut at every byte offset, and a bit flipped in every byte. Each copy must give a clean
// error naming the file, or a trace that says what was lost; never a crash (the ASan build runs
// this too), a hang, or a silently different result.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "format/gst/gst_reader.h"

namespace grainscope {
namespace {

using Bytes = std::vector<unsigned char>;

Bytes PiTrace() {
  std::ifstream in(GRAINSCOPE_EXAMPLES_DIR "/traces/pi.gst", std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// What an analysis would see: events and messages, summed up.
struct Fingerprint {
  uint64_t events = 0;
  int64_t time_sum = 0;
  uint64_t messages = 0;
  bool operator==(const Fingerprint&) const = default;
};

Fingerprint Of(const Trace& t) {
  Fingerprint f;
  for (uint32_t l = 0; l < t.locations().size(); ++l) {
    const EventColumns& e = t.events(LocationId(l));
    f.events += e.size();
    for (size_t i = 0; i < e.size(); ++i) f.time_sum += e.time[i];
  }
  f.messages = t.messages().size();
  return f;
}

TEST(GstDamage, TruncationAtEveryByteOfThePiTrace) {
  const Bytes full = PiTrace();
  ASSERT_GT(full.size(), 1000u) << "examples/traces/pi.gst is missing";
  Result<Trace> whole = ReadGst(full, "pi.gst");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const Fingerprint complete = Of(*whole);
  const auto start = std::chrono::steady_clock::now();
  size_t errors = 0, prefixes = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    const Bytes cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(n));
    Result<Trace> r = ReadGst(cut, "pi.gst");
    if (!r.ok()) {
      ++errors;
      const std::string& m = r.status().message();
      ASSERT_EQ(m.rfind("pi.gst: ", 0), 0u) << n << ": " << m;
      continue;
    }
    ++prefixes;
    // A valid prefix: it says the trace was not closed, holds no more than the whole, and says
    // where the file was cut unless the cut fell between two chunks.
    ASSERT_EQ(r->diagnostics().Count(Diag::kTraceNotFinished), 1u) << n;
    ASSERT_EQ(r->Metadata("end"), "missing") << n;
    ASSERT_LE(Of(*r).events, complete.events) << n;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[ truncate ] %zu offsets of a %zu-byte trace: %zu clean errors, %zu readable prefixes, %.2f s\n",
              full.size(), full.size(), errors, prefixes, seconds);
  EXPECT_GT(prefixes, errors);  // most cuts leave something to analyse
}

TEST(GstDamage, FlippedBitInEveryByteOfThePiTrace) {
  const Bytes full = PiTrace();
  ASSERT_GT(full.size(), 1000u);
  Result<Trace> whole = ReadGst(full, "pi.gst");
  ASSERT_TRUE(whole.ok()) << whole.status().message();
  const Fingerprint complete = Of(*whole);
  const size_t clean_diagnostics = whole->diagnostics().entries().size();
  size_t errors = 0, warned = 0, unchanged = 0;
  for (size_t n = 0; n < full.size(); ++n) {
    Bytes b = full;
    b[n] ^= static_cast<unsigned char>(1u << (n % 8));
    Result<Trace> r = ReadGst(b, "pi.gst");
    if (!r.ok()) {
      ++errors;
      ASSERT_EQ(r.status().message().rfind("pi.gst: ", 0), 0u) << n << ": " << r.status().message();
    } else if (r->diagnostics().entries().size() > clean_diagnostics) {
      ++warned;
    } else {
      // Nothing said: then nothing may have changed (a flip in a reserved field of the file header).
      ASSERT_EQ(Of(*r), complete) << "byte " << n << ": a flipped bit changed the result silently";
      ++unchanged;
    }
  }
  std::printf("[ bitflip  ] %zu bytes: %zu errors, %zu read with a warning, %zu without effect\n", full.size(), errors,
              warned, unchanged);
}

}  // namespace
}  // namespace grainscope
