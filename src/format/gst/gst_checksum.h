// CRC-32C (Castagnoli), the checksum of .gst chunk headers and payloads (format version 2).
// Header-only and dependency-free like gst_format.h: the recording runtime computes it on its
// write path, including in the fatal-signal handler (no allocation, no lock, no static guard).
// Uses the SSE4.2 crc32 instruction when the CPU has it (about 8 bytes per cycle), else a table.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace grainscope::gst {
namespace crc32c_detail {

constexpr uint32_t kPolynomial = 0x82F63B78u;  // reflected Castagnoli polynomial

constexpr std::array<uint32_t, 256> MakeTable() {
  std::array<uint32_t, 256> table{};
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ kPolynomial : c >> 1;
    table[i] = c;
  }
  return table;
}
inline constexpr std::array<uint32_t, 256> kTable = MakeTable();

inline uint32_t Portable(uint32_t crc, const unsigned char* p, size_t n) {
  for (size_t i = 0; i < n; ++i) crc = kTable[(crc ^ p[i]) & 0xff] ^ (crc >> 8);
  return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) inline uint32_t Hardware(uint32_t crc, const unsigned char* p, size_t n) {
  uint64_t c = crc;
  for (; n >= 8; n -= 8, p += 8) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    c = __builtin_ia32_crc32di(c, v);
  }
  auto c32 = static_cast<uint32_t>(c);
  for (; n > 0; --n, ++p) c32 = __builtin_ia32_crc32qi(c32, *p);
  return c32;
}
#endif

}  // namespace crc32c_detail

// CRC-32C of `size` bytes (crc32c("123456789") == 0xE3069283).
inline uint32_t Crc32c(const void* data, size_t size) {
  const auto* p = static_cast<const unsigned char*>(data);
  uint32_t crc = ~0u;
#if defined(__x86_64__)
  if (__builtin_cpu_supports("sse4.2")) return ~crc32c_detail::Hardware(crc, p, size);
#endif
  return ~crc32c_detail::Portable(crc, p, size);
}

}  // namespace grainscope::gst
