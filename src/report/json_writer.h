// A JSON report written member by member: the same bytes as nlohmann's dump(2) of the whole
// object (and FinishJson's notes), without holding a DOM of its large arrays. A critical path of
// 7 M segments as one DOM took about 5x the output's size of memory; written so, each element is
// a DOM of its own for as long as it is dumped, and the text goes out to its file (base/
// text_sink.h) as it grows.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/text_sink.h"

namespace grainscope {

class JsonReportWriter {
 public:
  using Json = nlohmann::ordered_json;

  // Members are appended to `sink`; `indent`: the object's own (an element of an ObjectArray's).
  explicit JsonReportWriter(TextSink& sink, size_t indent = 0) : sink_(sink), out_(sink.text()), indent_(indent) {}

  // A member whose value is small enough to build whole.
  void Member(std::string_view key, const Json& value);
  // A member whose value is the array of element(0) .. element(n - 1), each built on its own.
  // The elements are built and dumped on Threads() threads (base/text_sink.h's AppendInOrder, the
  // same bytes on any number): `element` must only read what it shares.
  template <typename F>
  void Array(std::string_view key, size_t n, F&& element) {
    Key(key);
    if (n == 0) {
      out_ += "[]";
      return;
    }
    out_ += '[';
    const size_t indent = indent_ + 4;
    AppendInOrder(sink_, n, ArrayThreads(), [&](size_t i, std::string& text) {
      text += i == 0 ? "\n" : ",\n";
      text.append(indent, ' ');
      AppendIndented(text, Dump(Json(element(i)), 2), indent);
    });
    CloseArray();
  }
  // A member whose value is an array of n objects, each written by write(i, writer) with a writer
  // of its own (an object with large arrays of its own: a Gantt chart's processors).
  template <typename F>
  void ObjectArray(std::string_view key, size_t n, F&& write) {
    ForEachElement(key, n, [&](size_t i) {
      JsonReportWriter element(sink_, indent_ + 4);
      write(i, element);
      element.Close();
    });
  }
  // `value` as text, like nlohmann's dump(indent), except that bytes that are not UTF-8 (a name
  // from a trace whose strings are not) become U+FFFD instead of an exception: an answer with a
  // replaced character, never a crash.
  static std::string Dump(const Json& value, int indent = -1);
  // The object's closing brace ("{}" when it has no member).
  void Close();
  // FinishJson's end of a report: the notes (unless none), the closing brace and a newline.
  void Finish(const std::vector<std::string>& notes, const std::vector<std::string>& own = {});

 private:
  template <typename F>
  void ForEachElement(std::string_view key, size_t n, F&& append) {
    Key(key);
    if (n == 0) {
      out_ += "[]";
      return;
    }
    out_ += '[';
    for (size_t i = 0; i < n; ++i) {
      out_ += i == 0 ? "\n" : ",\n";
      out_.append(indent_ + 4, ' ');
      append(i);
      sink_.Step();
    }
    CloseArray();
  }
  void Key(std::string_view key);
  void CloseArray();
  static unsigned ArrayThreads();
  // `dumped` (a value dumped at indent 0) appended to `to` at `indent` spaces: JSON strings hold no
  // raw newline, so each newline starts an indented line.
  static void AppendIndented(std::string& to, const std::string& dumped, size_t indent);

  TextSink& sink_;
  std::string& out_;  // sink_.text()
  size_t indent_;
  bool first_ = true;
};

}  // namespace grainscope
