// Locations in text tables: a location's name, and the width of a column of them, so that long
// names (Kineto's "rank 0 thread 4037 (python3.8)", Score-P's "MPI Rank 0:OMP thread 1") keep
// the columns after them aligned.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string_view>

#include "model/trace.h"

namespace grainscope {

// "-" for no location (a wait without a late one).
inline std::string_view LocationName(const Trace& t, LocationId l) {
  return l.valid() ? t.str(t.location(l).name) : std::string_view("-");
}

// The longest location name, at least `min` (the column's own width) and at most 40 characters
// (a longer name overflows its row rather than widening every row).
inline size_t LocationColumnWidth(const Trace& t, size_t min) {
  size_t width = min;
  for (const Location& l : t.locations()) width = std::max(width, std::min<size_t>(t.str(l.name).size(), 40));
  return width;
}

}  // namespace grainscope
