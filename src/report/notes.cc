#include "report/notes.h"

#include "report/json_writer.h"

namespace grainscope {

std::string FinishJson(nlohmann::ordered_json& j, const std::vector<std::string>& notes,
                       const std::vector<std::string>& own) {
  std::string out;
  TextSink sink(out);
  JsonReportWriter w(sink);
  for (const auto& [key, value] : j.items()) w.Member(key, value);
  w.Finish(notes, own);
  return out;
}

}  // namespace grainscope
