#include "report/notes.h"

namespace grainscope {

std::string FinishJson(nlohmann::ordered_json& j, const std::vector<std::string>& notes,
                       const std::vector<std::string>& own) {
  if (!notes.empty() || !own.empty()) {
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (const std::string& n : notes) all.push_back(n);
    for (const std::string& n : own) all.push_back(n);
    j["notes"] = std::move(all);
  }
  return j.dump(2) + "\n";
}

}  // namespace grainscope
