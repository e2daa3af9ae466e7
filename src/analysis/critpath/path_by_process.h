// Where the critical path ran, by process: a rank with its threads and, in a GPU trace, the
// streams it launched work on (Location::group), and the places it went from one process to
// another (a message, a collective, a GPU launch or sync edge between ranks' work). The question
// an ML engineer asks of a distributed job: which rank set the step time, and where did the path
// cross to another one.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/critpath/critpath.h"
#include "model/trace.h"

namespace grainscope {

struct ProcessPathTime {
  LocationId process;   // the process's location (Location::group)
  TimeNs time_ns = 0;   // the path's time on its locations
  double fraction = 0;  // of the path's length
};

struct PathCrossing {
  TimeNs at_ns = 0;  // where the next process's stretch starts (absolute, like the trace)
  LocationId from, to;
};

struct PathByProcess {
  std::vector<ProcessPathTime> processes;  // most time first; ties by process
  std::vector<PathCrossing> crossings;     // in time order
};

PathByProcess SplitPathByProcess(const Trace& t, const CriticalPath& cp);

}  // namespace grainscope
