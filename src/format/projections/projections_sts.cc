#include "format/projections/projections_sts.h"

#include <optional>

#include <fmt/format.h>

#include "base/numbers.h"

namespace grainscope {
namespace {

// Splits off the first blank-separated token of `rest`.
std::string_view NextToken(std::string_view& rest) {
  const size_t begin = std::min(rest.size(), rest.find_first_not_of(" \t\r"));
  rest.remove_prefix(begin);
  const size_t end = std::min(rest.size(), rest.find_first_of(" \t\r"));
  const std::string_view token = rest.substr(0, end);
  rest.remove_prefix(end);
  return token;
}

std::optional<int64_t> NextInt(std::string_view& rest) {
  std::string_view token = NextToken(rest);
  const bool negative = token.starts_with('-');
  if (negative) token.remove_prefix(1);
  const std::optional<int64_t> v = ParseNonNegativeInt(token);
  if (!v) return std::nullopt;
  return negative ? -*v : *v;
}

// A quoted name ("recv(PingMsg* impl_msg)": blanks inside), up to the line's last quote before
// the numbers that follow it.
std::optional<std::string_view> NextQuoted(std::string_view& rest) {
  const size_t open = rest.find('"');
  const size_t close = rest.rfind('"');
  if (open == std::string_view::npos || close == open) return std::nullopt;
  const std::string_view name = rest.substr(open + 1, close - open - 1);
  rest.remove_prefix(close + 1);
  return name;
}

// Reads one line into `sts`; false when its fields are not what its keyword says.
bool ReadLine(std::string_view line, ProjectionsSts& sts) {
  std::string_view rest = line;
  const std::string_view keyword = NextToken(rest);
  if (keyword == "PROCESSORS") {
    const std::optional<int64_t> n = NextInt(rest);
    if (!n || *n < 0) return false;
    sts.processors = *n;
  } else if (keyword == "CHARE") {
    const std::optional<int64_t> id = NextInt(rest);
    const std::optional<std::string_view> name = NextQuoted(rest);
    const std::optional<int64_t> dimensions = NextInt(rest);
    if (!id || !name || !dimensions) return false;
    sts.chares[*id] = {std::string(*name), static_cast<int32_t>(*dimensions)};
  } else if (keyword == "ENTRY") {
    if (NextToken(rest) != "CHARE") return false;
    const std::optional<int64_t> id = NextInt(rest);
    const std::optional<std::string_view> name = NextQuoted(rest);
    const std::optional<int64_t> chare = NextInt(rest);
    if (!id || !name || !chare) return false;
    sts.entries[*id] = {std::string(*name), *chare};
  } else if (keyword == "EVENT") {
    const std::optional<int64_t> id = NextInt(rest);
    if (!id) return false;
    const size_t begin = std::min(rest.size(), rest.find_first_not_of(" \t"));
    const size_t end = rest.find_last_not_of(" \t\r");
    sts.user_events[*id] = std::string(end == std::string_view::npos ? std::string_view() : rest.substr(begin, end + 1 - begin));
  }
  return true;
}

}  // namespace

std::string ProjectionsSts::EntryName(int64_t entry) const {
  const auto e = entries.find(entry);
  if (e == entries.end()) return fmt::format("entry {}", entry);
  const auto c = chares.find(e->second.chare);
  return c == chares.end() ? e->second.name : fmt::format("{}::{}", c->second.name, e->second.name);
}

Result<ProjectionsSts> ParseProjectionsSts(std::string_view content, std::string_view file) {
  if (content.empty()) return DataLoss(fmt::format("{}: empty: expected a Projections .sts file", file));
  if (!LooksLikeProjectionsSts(content))
    return DataLoss(fmt::format("{}:1: expected a Projections .sts file (PROJECTIONS_ID or VERSION first), got {}", file,
                                EchoToken(content.substr(0, content.find('\n')))));
  ProjectionsSts sts;
  size_t line_no = 0;
  for (size_t begin = 0; begin < content.size();) {
    const size_t end = std::min(content.size(), content.find('\n', begin));
    const std::string_view line = content.substr(begin, end - begin);
    ++line_no;
    if (!ReadLine(line, sts))
      return DataLoss(fmt::format("{}:{}: expected the fields of a {} line, got {}", file, line_no,
                                  line.substr(0, line.find(' ')), EchoToken(line)));
    begin = end + 1;
  }
  if (sts.processors <= 0) return DataLoss(fmt::format("{}: no PROCESSORS line: how many PE logs there are is unknown", file));
  return sts;
}

bool LooksLikeProjectionsSts(std::string_view head) {
  return head.starts_with("PROJECTIONS_ID") || head.starts_with("VERSION ");
}

}  // namespace grainscope
