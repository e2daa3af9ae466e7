// Static figures as standalone SVG (for papers): the actual Gantt chart with grains coloured by
// length, and the projected speedup curve against measured runs. Deterministic: the same input
// gives the same bytes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/profile/profile.h"
#include "analysis/regions/time_classes.h"
#include "schedule/predict.h"

namespace grainscope {

// The colour of a grain of length `t` in [lo, hi] on the log scale the HTML page uses too
// (report/html/report.js lengthColor): pale blue for the shortest, dark red for the longest.
std::string LengthColor(double t, double lo, double hi);

// Text and attribute values for XML, SVG and HTML: & < > " as entities.
std::string EscapeMarkup(std::string_view s);

// Round tick values covering [0, max]: 1, 2 or 5 times a power of ten apart, at most ~8 ticks.
std::vector<double> NiceTicks(double max);

// `blocked` (per location, may be empty): periods drawn hatched grey over the lane, apart from the
// grains' colours, with a legend.
std::string GanttSvg(const Trace& trace, const std::vector<GanttLane>& lanes,
                     const std::vector<std::vector<BlockedSpan>>& blocked, const std::string& title);
// Speedup of the projection (work / projected makespan) for each processor count, the ideal line,
// and every run of the prediction (work / its corrected time: the time the projection models).
std::string SpeedupSvg(const Prediction& p, const std::string& title);

}  // namespace grainscope
