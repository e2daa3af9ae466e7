#include "schedule/io/taskgraph_importer.h"

#include <cctype>

namespace grainscope {

bool HasExtension(std::string_view path, std::string_view extension) {
  if (path.size() < extension.size()) return false;
  const std::string_view tail = path.substr(path.size() - extension.size());
  for (size_t i = 0; i < extension.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(tail[i])) != extension[i]) return false;
  return true;
}

std::string_view FirstWord(std::string_view text) {
  const size_t b = text.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return {};
  const size_t e = text.find_first_of(" \t\r\n{<", b);
  return text.substr(b, (e == std::string_view::npos ? text.size() : e) - b);
}

}  // namespace grainscope
