// The trace readers grainscope knows: one line each (docs/contributing.md, "Adding a trace
// reader"). Each reader's folder defines its Importer; nothing registers itself at start-up.
#include <algorithm>
#include <array>

#include "format/chrome/chrome_rank_dir.h"
#include "format/chrome/chrome_reader.h"
#include "format/gst/gst_reader.h"
#include "format/importer.h"
#include "format/otf2/otf2_reader.h"
#include "format/seedtext/seedtext_reader.h"

namespace grainscope {
namespace {

// Auto-detection asks them in this order; the first sure one wins, else the first plausible one.
constexpr std::array<const Importer*, 5> kImporters = {
    &kSeedTextImporter,
    &kOtf2Importer,
    &kChromeImporter,
    &kGstImporter,
    &kChromeRanksImporter,
};

}  // namespace

std::span<const Importer* const> Importers() { return kImporters; }

const Importer* FindImporter(std::string_view name) {
  auto it = std::find_if(kImporters.begin(), kImporters.end(), [&](const Importer* i) { return i->name == name; });
  return it == kImporters.end() ? nullptr : *it;
}

}  // namespace grainscope
