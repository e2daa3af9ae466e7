// The delta coding of .gst event blocks on arbitrary bytes: the first two bytes give the number of
// record slots to decode (up to a real block's 4096), the rest is the coded block. A decoded block
// is encoded again and must decode to the same records.
#include <cstdlib>
#include <cstring>
#include <vector>

#include "format/gst/gst_block_codec.h"
#include "format/gst/gst_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 2) return 0;
  const size_t slots = (data[0] | (size_t{data[1]} << 8)) % 4097;
  std::vector<grainscope::gst::Record> out(slots);
  const std::string problem = grainscope::gst::DecodeDeltaBlock({data + 2, size - 2}, out.data(), slots);
  if (!problem.empty()) return 0;
  std::vector<unsigned char> coded(grainscope::gst::DeltaBlockBound(slots));
  coded.resize(grainscope::gst::EncodeDeltaBlock(out.data(), slots, coded.data()));
  std::vector<grainscope::gst::Record> again(slots);
  if (!grainscope::gst::DecodeDeltaBlock(coded, again.data(), slots).empty()) std::abort();
  if (slots > 0 && std::memcmp(out.data(), again.data(), slots * sizeof(grainscope::gst::Record)) != 0) std::abort();
  return 0;
}
