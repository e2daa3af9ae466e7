// A region's name as the reports print it. JSON and CSV carry names in full; a text table cuts a
// long one (a C++ kernel's demangled name runs to kilobytes: one Kineto kernel name is 5,400
// characters) to its first kTextNameWidth characters and says how long it was, so that a row
// stays a line.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "model/trace.h"

namespace grainscope {

inline constexpr std::string_view kOutsideRegions = "(outside regions)";
inline constexpr size_t kTextNameWidth = 96;

// The region's name, or kOutsideRegions for an invalid id (time outside every region).
inline std::string_view RegionName(const Trace& t, RegionId r) {
  return r.valid() ? t.str(t.region(r).name) : kOutsideRegions;
}

// `name` as a text table shows it: itself, or its head and "... (N chars)" within kTextNameWidth.
inline std::string TextName(std::string_view name) {
  if (name.size() <= kTextNameWidth) return std::string(name);
  std::string tail = "... (" + std::to_string(name.size()) + " chars)";
  return std::string(name.substr(0, kTextNameWidth - tail.size())) + tail;
}
inline std::string TextRegionName(const Trace& t, RegionId r) { return TextName(RegionName(t, r)); }

}  // namespace grainscope
