// Helpers shared by the libFuzzer targets (fuzz/README in docs/robustness.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace grainscope::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace grainscope::fuzz
