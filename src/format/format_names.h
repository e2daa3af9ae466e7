// The names of the trace formats, as --input-format and --output-format take them and as
// Trace::format() reports them: one place, so that writers and commands need no reader header.
#pragma once

#include <string_view>

namespace grainscope {

inline constexpr std::string_view kSeedTextFormat = "seedtext";
inline constexpr std::string_view kOtf2Format = "otf2";
inline constexpr std::string_view kChromeFormat = "chrome";
inline constexpr std::string_view kGstFormat = "gst";
inline constexpr std::string_view kCsvFormat = "csv";  // Pipit's CSV layout
inline constexpr std::string_view kProjectionsFormat = "projections";  // Charm++ Projections: .sts + per-PE logs
inline constexpr std::string_view kNsightFormat = "nsight";  // Nsight Systems SQLite export
inline constexpr std::string_view kHpctoolkitFormat = "hpctoolkit";  // an HPCToolkit database directory
inline constexpr std::string_view kChromeRanksFormat = "chrome-ranks";  // a directory of Chrome JSON files, one per rank

}  // namespace grainscope
