// The seed's text trace reader on arbitrary bytes: a Trace or an error, never a crash.
#include "format/seedtext/seedtext_reader.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = grainscope::fuzz::AsText(data, size);
  (void)grainscope::LooksLikeSeedText(text);
  (void)grainscope::ReadSeedText(text, "fuzz.txt");
  return 0;
}
