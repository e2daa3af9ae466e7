// The .gst reader on arbitrary bytes (the file image it would otherwise memory-map).
#include <span>

#include "format/gst/gst_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)grainscope::ReadGst(std::span<const unsigned char>(data, size), "fuzz.gst");
  return 0;
}
