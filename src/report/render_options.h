// How every report writer is asked to render: the output format, the seed formats' time unit,
// the input's name, the reader's notes and how many rows of a long table text output shows.
//
// JSON follows the contract of SPEC.md §9 (docs/json.md): times are integer nanoseconds in keys
// ending in _ns, relative to the trace's origin; ratios are plain numbers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "report/notes.h"
#include "report/units.h"

namespace grainscope {

struct RenderOptions {
  OutputFormat format = OutputFormat::kText;
  int64_t unit_ns = 1'000'000;  // integer time unit of the seed's file formats
  std::string source;           // the input's name, for headings
  // The reader's notes on the trace (report/notes.h): JSON output carries them in "notes".
  std::vector<std::string> notes;
  size_t top = 20;  // rows of each long table in text output; 0 = all (JSON and CSV are complete)
};

}  // namespace grainscope
