// StringPool: every name in a trace (locations, regions, message names, metadata) stored once
// and referred to by a 32-bit StringId.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/ids.h"

namespace grainscope {

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  // Returns the id of `s`, adding it when it is new. Id 0 is always the empty string.
  StringId Intern(std::string_view s);
  // The id of `s` if it is in the pool, else an invalid id.
  StringId Find(std::string_view s) const;
  std::string_view Get(StringId id) const { return views_[id.value]; }
  size_t size() const { return views_.size(); }

 private:
  // A deque never moves its elements, so the views into them (and the map's keys) stay valid.
  std::deque<std::string> storage_;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StringId> index_;
};

}  // namespace grainscope
