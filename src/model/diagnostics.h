// Diagnostics: named counters of the oddities a reader survived, Perfetto-stats style.
//
// A reader that meets something it can skip (a line of program output in a seed trace, a record
// kind it does not know, a message nobody received) counts it under a fixed name and keeps the
// first occurrence as an example, instead of failing. `grainscope info` prints the table and every
// other command one note per name. The names are declared in model/diagnostic_kinds.h.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostic_kinds.h"

namespace grainscope {

struct Diagnostic {
  Diag kind;
  std::string name;     // KindOf(kind).name: "skipped_lines", ...
  uint64_t count = 0;
  std::string example;  // the first occurrence, as a one-line message with its position
};

class Diagnostics {
 public:
  // Counts one occurrence of `kind`; `example` is kept only for the first one.
  void Add(Diag kind, std::string_view example);
  void AddCount(Diag kind, uint64_t count, std::string_view example);
  // Adds what another trace's reader counted (a rank file's, a document's).
  void Merge(const Diagnostics& other);
  uint64_t Count(Diag kind) const;
  // What the reader counts of the input it skipped: records (the default) or, for a text format,
  // lines (`info` reports that count under its name, whatever the format).
  void set_skipped_input(Diag kind) { skipped_input_ = kind; }
  Diag skipped_input() const { return skipped_input_; }
  const std::vector<Diagnostic>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }

 private:
  std::vector<Diagnostic> entries_;  // in order of first occurrence; few kinds, so a linear scan
  Diag skipped_input_ = Diag::kSkippedRecords;
};

}  // namespace grainscope
