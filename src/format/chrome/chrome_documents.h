// A Chrome JSON document as the Chrome reader reads it (chrome_reader.cc): alone, or as one rank's
// file of a rank directory (chrome_rank_dir.h). Internal to format/chrome.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "model/trace.h"
#include "model/trace_parts.h"

namespace grainscope::chrome {

struct Document {
  nlohmann::json json;  // as ParseKeepingDecimals (chrome_json.h) reads it
  std::string file;     // in messages
};

// The document as a trace. Times are absolute (its "ts" plus its time zero); the trace's origin
// is its time zero. `region_categories`, when given, gets each region's category; `collectives`
// what each collective row is in the job (an NCCL kernel's process group and sequence number).
Result<Trace> ReadDocument(Document doc, std::vector<std::string>* region_categories = nullptr,
                           std::vector<PartCollective>* collectives = nullptr);

}  // namespace grainscope::chrome
