// A JSON report written member by member: the same bytes as nlohmann's dump(2) of the whole
// object (and FinishJson's notes), without holding a DOM of its large arrays. A critical path of
// 7 M segments as one DOM took about 5x the output's size of memory; written so, each element is
// a DOM of its own for as long as it is dumped.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace grainscope {

class JsonReportWriter {
 public:
  using Json = nlohmann::ordered_json;

  // Members are appended to `out`.
  explicit JsonReportWriter(std::string& out) : out_(out) {}

  // A member whose value is small enough to build whole.
  void Member(std::string_view key, const Json& value);
  // A member whose value is the array of element(0) .. element(n - 1), each built on its own.
  template <typename F>
  void Array(std::string_view key, size_t n, F&& element) {
    Key(key);
    if (n == 0) {
      out_ += "[]";
      return;
    }
    out_ += "[\n";
    for (size_t i = 0; i < n; ++i) {
      out_ += i == 0 ? "    " : ",\n    ";
      AppendIndented(Json(element(i)).dump(2), 4);
    }
    out_ += "\n  ]";
  }
  // FinishJson's end: the notes (unless none), the closing brace and a newline.
  void Finish(const std::vector<std::string>& notes, const std::vector<std::string>& own = {});

 private:
  void Key(std::string_view key);
  // `dumped` (a value dumped at indent 0) at `indent` spaces: JSON strings hold no raw newline,
  // so each newline starts an indented line.
  void AppendIndented(const std::string& dumped, size_t indent);

  std::string& out_;
  bool first_ = true;
};

}  // namespace grainscope
