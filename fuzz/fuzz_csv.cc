// The Pipit CSV reader on arbitrary bytes.
#include "format/csv/csv_reader.h"
#include "fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text = grainscope::fuzz::AsText(data, size);
  (void)grainscope::LooksLikePipitCsv(text);
  (void)grainscope::ReadPipitCsv(text, "fuzz.csv");
  return 0;
}
