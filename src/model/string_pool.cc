#include "model/string_pool.h"

namespace grainscope {

StringPool::StringPool() { Intern(""); }

StringId StringPool::Intern(std::string_view s) {
  if (auto it = index_.find(s); it != index_.end()) return it->second;
  const std::string& stored = storage_.emplace_back(s);
  StringId id(static_cast<uint32_t>(views_.size()));
  views_.push_back(stored);
  index_.emplace(stored, id);
  return id;
}

StringId StringPool::Find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? StringId() : it->second;
}

}  // namespace grainscope
