// How the Chrome reader takes a trace written as several files (chrome_rank_dir.h: one file per
// rank of a PyTorch distributed job): parsed documents, read into one trace. Internal to
// format/chrome.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope::chrome {

struct Document {
  nlohmann::json json;  // as ParseKeepingDecimals (chrome_json.h) reads it
  std::string file;     // in messages
  // Its rank in a rank directory: every location name starts "rank <r> ", and process and
  // thread ids, flow ids and grainscope's own ids are the file's own. -1: a single file.
  int64_t rank = -1;
};

// What the caller found about the files themselves, added to the trace's notes.
struct DocumentNotes {
  std::vector<std::tuple<Diag, uint64_t, std::string>> diagnostics;  // kind, count, example
  std::vector<std::pair<std::string, std::string>> metadata;
};

// The documents as one trace, in their order (a rank directory's in rank order). Times are
// absolute (each file's "ts" plus its own time zero); the trace starts at the earliest time zero.
// `source` names the trace in messages.
Result<Trace> ReadDocuments(std::vector<Document> docs, std::string_view source, const DocumentNotes& notes);

}  // namespace grainscope::chrome
