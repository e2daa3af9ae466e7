#include "model/diagnostics.h"

#include <cassert>

#include "model/diagnostic_kinds.h"

namespace grainscope {

void Diagnostics::Add(std::string_view name, std::string_view example) {
  AddCount(name, 1, example);
}

void Diagnostics::AddCount(std::string_view name, uint64_t count, std::string_view example) {
  if (count == 0) return;
  // One condition, one declared name (model/diagnostic_kinds.cc): notes and `info` explain it.
  assert(FindDiagnosticKind(name) != nullptr && "undeclared diagnostic name");
  for (Diagnostic& d : entries_) {
    if (d.name == name) {
      d.count += count;
      return;
    }
  }
  entries_.push_back(Diagnostic{std::string(name), count, std::string(example)});
}

uint64_t Diagnostics::Count(std::string_view name) const {
  for (const Diagnostic& d : entries_)
    if (d.name == name) return d.count;
  return 0;
}

}  // namespace grainscope
