#include "report/json_writer.h"

#include "base/parallel.h"

namespace grainscope {

std::string JsonReportWriter::Dump(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

void JsonReportWriter::Key(std::string_view key) {
  out_ += first_ ? "{\n" : ",\n";
  out_.append(indent_ + 2, ' ');
  first_ = false;
  out_ += Dump(Json(std::string(key)));
  out_ += ": ";
}

void JsonReportWriter::Member(std::string_view key, const Json& value) {
  Key(key);
  AppendIndented(out_, Dump(value, 2), indent_ + 2);
}

void JsonReportWriter::Close() {
  if (first_) {
    out_ += "{}";
    return;
  }
  out_ += '\n';
  out_.append(indent_, ' ');
  out_ += '}';
}

void JsonReportWriter::AppendIndented(std::string& to, const std::string& dumped, size_t indent) {
  size_t from = 0;
  for (size_t nl = dumped.find('\n'); nl != std::string::npos; nl = dumped.find('\n', from)) {
    to.append(dumped, from, nl + 1 - from);
    to.append(indent, ' ');
    from = nl + 1;
  }
  to.append(dumped, from, std::string::npos);
}

void JsonReportWriter::CloseArray() {
  out_ += '\n';
  out_.append(indent_ + 2, ' ');
  out_ += ']';
}

unsigned JsonReportWriter::ArrayThreads() { return Threads(); }

void JsonReportWriter::Finish(const std::vector<std::string>& notes, const std::vector<std::string>& own) {
  if (!notes.empty() || !own.empty()) {
    Json all = Json::array();
    for (const std::string& n : notes) all.push_back(n);
    for (const std::string& n : own) all.push_back(n);
    Member("notes", all);
  }
  Close();
  out_ += '\n';
}

}  // namespace grainscope
