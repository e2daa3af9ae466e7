#include "schedule/io/text_cursor.h"

#include <fmt/format.h>

#include "base/numbers.h"

namespace grainscope {

TokenCursor::TokenCursor(std::string_view content, std::string source, CommentStyle comments)
    : source_(std::move(source)) {
  uint32_t line = 1;
  size_t pos = 0;
  while (pos <= content.size()) {
    size_t end = content.find('\n', pos);
    if (end == std::string_view::npos) end = content.size();
    std::string_view text = content.substr(pos, end - pos);
    const size_t first = text.find_first_not_of(" \t\r");
    const bool comment_line = comments == CommentStyle::kHashLines && first != std::string_view::npos &&
                              text[first] == '#';
    bool in_comment = false;
    size_t i = 0;
    while (!comment_line && i < text.size()) {
      const char c = text[i];
      if (comments == CommentStyle::kAngleBrackets && (c == '<' || (in_comment && c == '>'))) {
        in_comment = c == '<';
        ++i;
        continue;
      }
      if (in_comment || c == ' ' || c == '\t' || c == '\r') {
        ++i;
        continue;
      }
      size_t j = i;
      while (j < text.size() && text[j] != ' ' && text[j] != '\t' && text[j] != '\r' &&
             !(comments == CommentStyle::kAngleBrackets && text[j] == '<'))
        ++j;
      tokens_.push_back({text.substr(i, j - i), line});
      i = j;
    }
    pos = end + 1;
    ++line;
  }
  if (!tokens_.empty()) last_line_ = tokens_.back().line;
}

uint32_t TokenCursor::line() const {
  if (next_ < tokens_.size()) return tokens_[next_].line;
  return last_line_;
}

Status TokenCursor::ErrorAt(uint32_t line, std::string_view message) const {
  return DataLoss(fmt::format("{}:{}: {}", source_, line, message));
}

Status TokenCursor::ErrorHere(std::string_view message) const {
  const uint32_t at = next_ > 0 ? tokens_[next_ - 1].line : line();
  return ErrorAt(at, message);
}

Result<std::string_view> TokenCursor::Next(std::string_view what) {
  if (AtEnd()) return ErrorAt(last_line_, fmt::format("the file ends early: expected {}", what));
  return tokens_[next_++].text;
}

Result<int64_t> TokenCursor::NextInt(std::string_view what) {
  GS_ASSIGN_OR_RETURN(std::string_view token, Next(what));
  std::optional<int64_t> value = ParseNonNegativeInt(token);
  if (!value) return ErrorHere(fmt::format("expected {} (a non-negative integer), got '{}'", what, token));
  return *value;
}

}  // namespace grainscope
