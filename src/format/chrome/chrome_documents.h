// A Chrome JSON document as the Chrome reader reads it (chrome_reader.cc): alone, or as one rank's
// file of a rank directory (chrome_rank_dir.h). Internal to format/chrome.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "format/chrome/chrome_json.h"
#include "model/trace.h"
#include "model/trace_parts.h"

namespace grainscope::chrome {

struct Document {
  std::string_view content;  // the file's bytes: whoever reads the document keeps them alive
  DocumentLayout layout;     // as ScanDocument (chrome_json.h) found it
  std::string file;          // in messages
  bool report_progress = true;  // moves the progress bar by byte offset (not in a rank directory)
  ReleaseBefore release;        // a mapped file: drops the pages read (may be empty)
};

// `content` scanned as a document.
Result<Document> OpenDocument(std::string_view content, std::string file, ReleaseBefore release = nullptr);

// The channels of the messages NCCL's send/recv kernels are ends of, "NCCL p2p <group> <from>-><to>":
// each file holds one end, which a rank directory's merge pairs (MergeOptions::pairs_across_files).
inline constexpr std::string_view kNcclP2pChannel = "NCCL p2p ";

// The document as a trace. Times are absolute (its "ts" plus its time zero); the trace's origin
// is its time zero. `region_categories`, when given, gets each region's category; `collectives`
// what each collective row is in the job (an NCCL kernel's process group and sequence number).
Result<Trace> ReadDocument(Document doc, std::vector<std::string>* region_categories = nullptr,
                           std::vector<PartCollective>* collectives = nullptr);

}  // namespace grainscope::chrome
