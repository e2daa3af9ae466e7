// One PE's Projections log read into rows (internal to the reader, projections_reader.h): the
// record kinds, what each becomes, and the creations and processings the reader pairs into
// messages once every log is read.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

#include "model/diagnostics.h"
#include "model/region_roles.h"
#include "model/trace.h"

namespace grainscope {
struct ProjectionsSts;
}

namespace grainscope::projections {

enum class RowKind : uint8_t { kEnter, kLeave, kMarker, kCreation, kProcessing };

// A record as an event of its PE, kept until the PE's rows are sorted by time.
struct Row {
  TimeNs time;
  RowKind kind;
  uint32_t arg;  // a region number (LogReader::region), a label number, a creation or a processing
};
using LogRows = std::vector<Row>;

// A message's creation: (source PE, event number) is what a begin of processing names it by.
struct Creation {
  uint64_t key;
  uint64_t bytes;
  int32_t entry;
  uint32_t receivers = 0;  // messages made for it (one per processing PE; one alone when none)
  MessageId first_message;
  bool unmatched = false;
  uint32_t file, line;  // where it was read (LogReader::Where), for the note when nobody processes it
};

// A begin of processing that names a message.
struct Processing {
  uint64_t key;
  uint64_t bytes;
  int32_t entry;
  MessageId message;
  uint32_t file, line;
};

// A region the logs refer to: an entry method (entry >= 0) or a named one.
struct RegionKey {
  int64_t entry = -1;
  std::string name;
  RegionRole role = RegionRole::kFunction;
};

class LogReader {
 public:
  explicit LogReader(const ProjectionsSts& sts) : sts_(sts) {}

  // Reads `text`, one PE's log, into `rows`; `file` names it in notes. `truncated`: the file ended early, so a last line without its newline is cut.
  void Read(std::string_view text, std::string_view file, bool truncated, LogRows& rows);

  // "pingpong.0.log.gz:17": a record's file and line.
  std::string Where(uint32_t file, uint32_t line) const;

  std::vector<Creation>& creations() { return creations_; }
  std::vector<Processing>& processings() { return processings_; }
  const RegionKey& region(uint32_t r) const { return regions_[r]; }
  std::string_view label(uint32_t l) const { return labels_[l]; }

  // Adds what was skipped and what could not be read.
  void Report(Diagnostics& d) const;

 private:
  // Reads one record; returns why it cannot be read, or "".
  std::string ReadRecord(int64_t kind, std::string_view fields, LogRows& rows);
  std::string ReadMessageRecord(int64_t kind, std::string_view fields, LogRows& rows);
  std::string ReadUserRecord(int64_t kind, std::string_view fields, LogRows& rows);
  uint32_t EntryRegion(int64_t entry);
  uint32_t NamedRegion(std::string_view name, RegionRole role);
  uint32_t Label(std::string label);
  uint32_t FileNumber() const { return static_cast<uint32_t>(files_.size() - 1); }
  // Appends an Enter or Leave row, keeping the regions open on the PE (`open_`).
  void Bracket(LogRows& rows, TimeNs t, bool enter, uint32_t region);
  // At the end of computation, the Leaves of what is still open inside it.
  void CloseInside(LogRows& rows, TimeNs t, uint32_t computation);
  void FinishUserPairs(LogRows& rows);

  const ProjectionsSts& sts_;
  std::vector<std::string> files_;
  uint32_t line_ = 0;
  std::vector<Creation> creations_;
  std::vector<Processing> processings_;
  std::vector<RegionKey> regions_;
  std::unordered_map<int64_t, uint32_t> entry_regions_;
  std::unordered_map<std::string, uint32_t> named_regions_;
  std::vector<std::string> labels_;
  std::unordered_map<std::string, uint32_t> label_ids_;
  std::vector<uint32_t> open_;  // the PE's open regions, outermost first
  std::map<std::pair<int64_t, int64_t>, TimeNs> user_pairs_;  // (user event, event number) -> begin
  uint64_t skipped_ = 0, invalid_ = 0, closed_ = 0;
  std::string first_skipped_, first_invalid_, first_closed_;
};

}  // namespace grainscope::projections
