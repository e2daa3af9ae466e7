// Test helpers shared by the tests of traces read in shares (otf2_share_test.cc,
// otf2_share_critpath_test.cc).
#pragma once

#include <string>
#include <vector>

#include "model/trace.h"
#include "model/trace_share.h"

namespace grainscope {

// `processes` ranks of `threads` threads each: messages between neighbours (some rendezvous, some
// MPI_Ssend), thread barriers, an MPI_Allreduce and a broadcast of the even ranks every 10th
// iteration.
Trace HybridRun(int processes, int threads);

// Reads the `count` shares of the OTF2 archive `path` at once, on threads, completed through
// each other (LocalShareExchange).
std::vector<TraceShare> ReadCompleted(const std::string& path, uint32_t count);

}  // namespace grainscope
