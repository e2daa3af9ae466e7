// How the seed's views print a grain's id (GrainInstance::id): the id, or "-" in text, null in
// JSON and an empty CSV field for a region that stands in for grains (it has no grain id).
#pragma once

#include <cstdint>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace grainscope {

inline std::string GrainIdText(int64_t id) { return id >= 0 ? fmt::format("{}", id) : "-"; }
inline std::string GrainIdCsv(int64_t id) { return id >= 0 ? fmt::format("{}", id) : ""; }
inline nlohmann::ordered_json GrainIdJson(int64_t id) {
  return id >= 0 ? nlohmann::ordered_json(id) : nlohmann::ordered_json(nullptr);
}

}  // namespace grainscope
