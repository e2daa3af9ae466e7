// The .sts file of a Charm++ Projections trace (docs/formats/projections.md): what the per-PE logs
// refer to by number. Written once by PE 0 at the end of the run:
//
//    PROCESSORS 2
//    CHARE 45 "Ping1" 1                              id, name, index dimensions (-1: not an array)
//    ENTRY CHARE 153 "recv(PingMsg* impl_msg)" 45 29 id, name, chare, message type
//    EVENT 7 Compute step                           a user event: id, name (the rest of the line)
//
// Other lines (MACHINE, MESSAGE, TOTAL_*, PAPI_EVENT, END) are not needed to read the logs.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/status.h"

namespace grainscope {

struct ProjectionsSts {
  int64_t processors = 0;
  struct Chare {
    std::string name;
    int32_t dimensions = -1;
  };
  struct Entry {
    std::string name;
    int64_t chare = -1;
  };
  std::unordered_map<int64_t, Chare> chares;
  std::unordered_map<int64_t, Entry> entries;
  std::unordered_map<int64_t, std::string> user_events;

  // "Ping1::recv(PingMsg* impl_msg)", as Projections names an entry method; "entry 7" for an
  // entry the file does not list.
  std::string EntryName(int64_t entry) const;
};

// Reads `content`; `file` is only used in messages ("pingpong.sts:12: ..."). A line that cannot be
// read is an error naming it: without its table no log record can be named.
Result<ProjectionsSts> ParseProjectionsSts(std::string_view content, std::string_view file);

// True when `head` is the start of a .sts file ("PROJECTIONS_ID" or "VERSION" first).
bool LooksLikeProjectionsSts(std::string_view head);

}  // namespace grainscope
