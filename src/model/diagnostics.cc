#include "model/diagnostics.h"

namespace grainscope {

void Diagnostics::Add(Diag kind, std::string_view example) { AddCount(kind, 1, example); }

void Diagnostics::AddCount(Diag kind, uint64_t count, std::string_view example) {
  if (count == 0) return;
  for (Diagnostic& d : entries_) {
    if (d.kind == kind) {
      d.count += count;
      return;
    }
  }
  entries_.push_back(Diagnostic{kind, std::string(KindOf(kind).name), count, std::string(example)});
}

void Diagnostics::Merge(const Diagnostics& other) {
  for (const Diagnostic& d : other.entries_) AddCount(d.kind, d.count, d.example);
}

uint64_t Diagnostics::Count(Diag kind) const {
  for (const Diagnostic& d : entries_)
    if (d.kind == kind) return d.count;
  return 0;
}

}  // namespace grainscope
