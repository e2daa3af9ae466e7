// Names the Chrome trace-event writer and reader agree on (docs/formats/chrome.md).
#pragma once

#include <string_view>

namespace grainscope::chrome {

// Categories ("cat") of the events grainscope writes besides region slices, whose category is
// the region's role (RegionRoleName: "grain", "function", "point_to_point", ...).
inline constexpr std::string_view kMessageCategory = "message";  // flow events of messages
inline constexpr std::string_view kMarkerCategory = "marker";
inline constexpr std::string_view kRequestCategory = "grainscope.request";  // send_complete, recv_post
inline constexpr std::string_view kCollectiveCategory = "grainscope.collective";

// Argument names. kDepthArg is the nesting depth of an event whose place among equal
// timestamps the times alone do not tell (written only where needed).
inline constexpr std::string_view kDepthArg = "grainscope_depth";
inline constexpr std::string_view kKindArg = "grainscope_kind";
inline constexpr std::string_view kExternalIdArg = "grainscope_external_id";

}  // namespace grainscope::chrome
