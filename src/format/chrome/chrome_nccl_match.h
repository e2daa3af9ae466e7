// A PyTorch rank directory's NCCL kernels matched across ranks where Kineto gives no sequence
// numbers (its kernels and record_param_comms carry "Seq" only in newer versions). Each rank's
// profiler window starts and stops at its own moment, so the k-th kernel of one rank is often not
// the k-th of another (corpus two-ranks/: rank 0 holds one more kernel at the start); what the
// members of one operation share is their end: the operation completes on every rank once the
// last contribution arrives. Internal to format/chrome.
#pragma once

#include <string_view>
#include <vector>

#include "model/diagnostics.h"
#include "model/trace_parts.h"

namespace grainscope::chrome {

// The kernels of equal key and operation on different parts that overlap one another and end
// within 2 % of the shorter one's duration (at least 100 us) of the earliest end among them get
// one sequence number; a kernel without such a partner one of its own. Rows whose sequence the
// trace gave are left as they are. Counts the rows matched so (kCollectivesMatchedByTime).
void MatchCollectivesByTime(std::vector<TracePart>& parts, Diagnostics& notes, std::string_view path);

// Each rank's clock onto the lowest rank's, where they disagree: the members of one all-to-all
// operation (an all-reduce, an all-gather, ...) end together, so the median over the operations
// two ranks share of the difference of their ends is the offset of their clocks (Kineto records
// none). A part whose offset exceeds 100 us (below that, the kernels' own spread) gets it in its
// ClockMap and a note says by how much it moved (kClocksAligned); where ends still contradict,
// `replay --clc` corrects the rest.
void AlignClocksOnCollectives(std::vector<TracePart>& parts, Diagnostics& notes, std::string_view path);

}  // namespace grainscope::chrome
