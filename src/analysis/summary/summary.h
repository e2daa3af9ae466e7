// The numbers `grainscope info` prints about a loaded trace.
#pragma once

#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "model/trace.h"

namespace grainscope {

struct TraceSummary {
  std::string format;
  uint64_t locations = 0;
  uint64_t locations_by_kind[std::size(kLocationKinds)] = {};
  uint64_t regions = 0;
  uint64_t grains = 0;  // regions of role kGrain
  uint64_t events = 0;
  uint64_t messages = 0;            // matched: both ends recorded
  uint64_t unmatched_messages = 0;  // only one end recorded
  uint64_t message_bytes = 0;       // of matched messages
  uint64_t bytes_sent = 0;          // of every message whose send was recorded
  uint64_t bytes_received = 0;      // of every message whose receive was recorded
  uint64_t collectives = 0;
  TimeNs origin_ns = 0;
  TimeNs start_ns = 0;  // relative to the origin
  TimeNs end_ns = 0;    // relative to the origin
  uint64_t events_by_kind[kEventKindCount] = {};
  // Calls of each communication region (point-to-point, collective, wait: MPI_Send, ...), most
  // called first (then by name): what the trace holds of the program's communication calls.
  std::vector<std::pair<RegionId, uint64_t>> communication_calls;
};

TraceSummary Summarize(const Trace& trace);

}  // namespace grainscope
