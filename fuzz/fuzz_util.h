// Helpers shared by the libFuzzer targets (fuzz/README in docs/robustness.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

namespace grainscope::fuzz {

inline std::string_view AsText(const uint8_t* data, size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

// Writes `size` bytes to `path` (a target's scratch file); aborts when it cannot, which is the
// harness's fault, not the reader's.
inline void WriteFileOrAbort(const std::string& path, const void* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

}  // namespace grainscope::fuzz
