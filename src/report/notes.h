// JSON output's notes: the one-line statements that go with every result so that no number is
// read without knowing what the trace lacked (the reader's diagnostics, model/diagnostic_kinds.h)
// or what limits the analysis. Text output prints the reader's notes on stderr as "note: ..."
// lines before the result (cli/common.h).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace grainscope {

// Adds `notes` then `own` (the analysis' notes) as a top-level "notes" array of strings, unless
// both are empty, and dumps the object as every JSON report ends: indented by 2, a final newline.
std::string FinishJson(nlohmann::ordered_json& j, const std::vector<std::string>& notes,
                       const std::vector<std::string>& own = {});

}  // namespace grainscope
