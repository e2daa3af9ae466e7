// The trace readers and writers grainscope knows: one line each (docs/contributing.md, "Adding a
// trace reader", "Adding a trace writer"). Each folder defines its Importer and Exporter; nothing
// registers itself at start-up.
#include <algorithm>
#include <array>

#include "format/chrome/chrome_rank_dir.h"
#include "format/chrome/chrome_reader.h"
#include "format/chrome/chrome_writer.h"
#include "format/csv/csv_reader.h"
#include "format/csv/csv_writer.h"
#include "format/exporter.h"
#include "format/gst/gst_reader.h"
#include "format/hpctoolkit/hpctoolkit_reader.h"
#include "format/gst/gst_writer.h"
#include "format/importer.h"
#include "format/nsight/nsight_reader.h"
#include "format/otf2/otf2_reader.h"
#include "format/otf2/otf2_writer.h"
#include "format/projections/projections_reader.h"
#include "format/seedtext/seedtext_reader.h"

namespace grainscope {
namespace {

// Auto-detection asks them in this order; the first sure one wins, else the first plausible one.
constexpr std::array<const Importer*, 9> kImporters = {
    &kSeedTextImporter,
    &kOtf2Importer,
    &kChromeImporter,
    &kGstImporter,
    &kChromeRanksImporter,
    &kCsvImporter,
    &kProjectionsImporter,
    &kNsightImporter,
    &kHpctoolkitImporter,
};

// --help and the message for an extension no writer has list them in this order.
constexpr std::array<const Exporter*, 4> kExporters = {
    &kOtf2Exporter,
    &kChromeExporter,
    &kGstExporter,
    &kCsvExporter,
};

template <class Entry, size_t n>
const Entry* FindByName(const std::array<const Entry*, n>& entries, std::string_view name) {
  auto it = std::find_if(entries.begin(), entries.end(), [&](const Entry* e) { return e->name == name; });
  return it == entries.end() ? nullptr : *it;
}

}  // namespace

std::span<const Importer* const> Importers() { return kImporters; }

const Importer* FindImporter(std::string_view name) { return FindByName(kImporters, name); }

std::span<const Exporter* const> Exporters() { return kExporters; }

const Exporter* FindExporter(std::string_view name) { return FindByName(kExporters, name); }

}  // namespace grainscope
