// Report writers: turn analysis results into text, JSON, CSV or the seed's file formats.
// They never compute: every number comes from the result structs. Each returns the whole
// output as a string, or an error when the format does not apply to that report.
//
// JSON follows the contract of SPEC.md §9 (docs/json.md): times are integer nanoseconds in keys
// ending in _ns, relative to the trace's origin; ratios are plain numbers.
#pragma once

#include <string>
#include <vector>

#include "analysis/compensate/compensate.h"
#include "analysis/critpath/critpath.h"
#include "analysis/profile/profile.h"
#include "analysis/replay/replay.h"
#include "analysis/waits/characterize.h"
#include "analysis/summary/summary.h"
#include "analysis/taskgraph/taskgraph.h"
#include "base/status.h"
#include "report/notes.h"
#include "report/units.h"
#include "schedule/portfolio.h"
#include "schedule/predict.h"

namespace grainscope {

struct RenderOptions {
  OutputFormat format = OutputFormat::kText;
  int64_t unit_ns = 1'000'000;  // integer time unit of the seed's file formats
  std::string source;           // the input's name, for headings
  // The reader's notes on the trace (report/notes.h): JSON output carries them in "notes".
  std::vector<std::string> notes;
  size_t top = 20;  // rows of each long table in text output; 0 = all (JSON and CSV are complete)
};

Result<std::string> RenderInfo(const Trace& trace, const TraceSummary& summary, const RenderOptions& o);
Result<std::string> RenderProfile(const Trace& trace, const ExecutionProfile& p, const RenderOptions& o);
Result<std::string> RenderTaskGraph(const Trace& trace, const TaskGraph& g, const RenderOptions& o);
Result<std::string> RenderCriticalPath(const Trace& trace, const CriticalPath& cp, const RenderOptions& o);
// `replayed_path` is the critical path of the replayed run; `what_if` describes the models.
Result<std::string> RenderReplay(const Trace& trace, const ReplayResult& r, const CriticalPath& replayed_path,
                                 const std::string& what_if, const RenderOptions& o);
Result<std::string> RenderCompensation(const Trace& trace, const Compensation& c, const RenderOptions& o);
Result<std::string> RenderWaits(const Trace& trace, const WaitStates& w, const Characterization& c,
                                const RenderOptions& o);
Result<std::string> RenderGantt(const Trace& trace, const std::vector<GanttLane>& lanes,
                                const RenderOptions& o);
// A projected schedule (`requested` is the heuristic asked for, e.g. "best"); `speedup` may be
// empty. Times are in the graph's unit (ns for a trace's graph: seed output then uses unit_ns).
Result<std::string> RenderSchedule(const TaskDag& g, const Schedule& s, std::string_view requested,
                                   const std::vector<SpeedupPoint>& speedup, const RenderOptions& o);
Result<std::string> RenderPrediction(const Prediction& p, const RenderOptions& o);

}  // namespace grainscope
