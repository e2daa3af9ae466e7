// Typed 32-bit ids for the rows of the Trace model's tables.
//
// A LocationId cannot be passed where a RegionId is expected, which catches a whole class of
// mix-ups at compile time, while each id stays a plain uint32_t in memory.
#pragma once

#include <compare>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>

namespace grainscope {

template <typename Tag>
struct Id {
  static constexpr uint32_t kInvalidValue = std::numeric_limits<uint32_t>::max();

  uint32_t value = kInvalidValue;

  constexpr Id() = default;
  constexpr explicit Id(uint32_t v) : value(v) {}

  constexpr bool valid() const { return value != kInvalidValue; }
  constexpr auto operator<=>(const Id&) const = default;
};

using LocationId = Id<struct LocationTag>;
using RegionId = Id<struct RegionTag>;
using StringId = Id<struct StringTag>;
using MessageId = Id<struct MessageTag>;
using CollectiveId = Id<struct CollectiveTag>;
using CommunicatorId = Id<struct CommunicatorTag>;
using DependencyId = Id<struct DependencyTag>;

// Position of an event in its location's event columns.
using EventIndex = uint32_t;
inline constexpr EventIndex kNoEvent = std::numeric_limits<uint32_t>::max();

}  // namespace grainscope

template <typename Tag>
struct std::hash<grainscope::Id<Tag>> {
  size_t operator()(grainscope::Id<Tag> id) const noexcept { return std::hash<uint32_t>()(id.value); }
};
