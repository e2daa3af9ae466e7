// Whitespace-separated tokens of a text file with their line numbers, for the readers of the
// line-oriented task-graph formats (STG, the seed's Task_Graph). Errors name "file:line" and
// what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace grainscope {

enum class CommentStyle {
  kHashLines,      // a line whose first non-blank character is '#' is a comment (STG)
  kAngleBrackets,  // text from '<' to the next '>' on the same line is a comment (the seed's files)
};

class TokenCursor {
 public:
  TokenCursor(std::string_view content, std::string source, CommentStyle comments);

  bool AtEnd() const { return next_ >= tokens_.size(); }
  // The line of the next token (of the last one at the end), for messages.
  uint32_t line() const;
  std::string_view Peek() const { return AtEnd() ? std::string_view() : tokens_[next_].text; }

  // The next token, or an error "file:line: expected <what>..." at the end of the input.
  Result<std::string_view> Next(std::string_view what);
  // The next token as a non-negative integer; `what` says what it is ("the weight of task 3").
  Result<int64_t> NextInt(std::string_view what);

  // "file:line: <message>" at the line of the token just read (or of the next one, before any).
  Status ErrorHere(std::string_view message) const;
  Status ErrorAt(uint32_t line, std::string_view message) const;
  const std::string& source() const { return source_; }

 private:
  struct Token {
    std::string_view text;
    uint32_t line;
  };
  std::string source_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  uint32_t last_line_ = 1;
};

}  // namespace grainscope
