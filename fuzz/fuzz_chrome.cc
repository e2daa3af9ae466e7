// The Chrome trace-event JSON reader on arbitrary bytes.
#include "format/chrome/chrome_reader.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = grainscope::fuzz::AsText(data, size);
  (void)grainscope::LooksLikeChromeJson(text);
  (void)grainscope::ReadChromeJson(text, "fuzz.json");
  return 0;
}
