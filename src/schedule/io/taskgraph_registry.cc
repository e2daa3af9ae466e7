// The task-graph readers `schedule` knows: one line each (docs/contributing.md, "Adding a
// task-graph reader"). Each reader's file defines its TaskGraphImporter; nothing registers itself
// at start-up.
#include <algorithm>
#include <array>

#include "schedule/io/readers.h"
#include "schedule/io/taskgraph_importer.h"

namespace grainscope {
namespace {

// --help lists them in this order, and "auto" asks them in it, ahead of the trace readers
// (graph_input.h says why that keeps every file's reader).
constexpr std::array<const TaskGraphImporter*, 4> kTaskGraphImporters = {
    &kSeedTaskGraphImporter,
    &kStgImporter,
    &kDotImporter,
    &kJsonTaskGraphImporter,
};

}  // namespace

std::span<const TaskGraphImporter* const> TaskGraphImporters() { return kTaskGraphImporters; }

const TaskGraphImporter* FindTaskGraphImporter(std::string_view name) {
  auto it = std::find_if(kTaskGraphImporters.begin(), kTaskGraphImporters.end(),
                         [&](const TaskGraphImporter* i) { return i->name == name; });
  return it == kTaskGraphImporters.end() ? nullptr : *it;
}

}  // namespace grainscope
