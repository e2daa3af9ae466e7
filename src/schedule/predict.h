// The seed's chapter 5 loop (TaskGrapher): from one measured run, the task graph (grains with
// measured times, arcs with measured delays), its projected run time and speedup on 1..N
// processors, and for runs of the same program on other processor counts the error of the
// projection against what they measured.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/trace.h"
#include "schedule/portfolio.h"

namespace grainscope {

struct RunComparison {
  std::string file;
  uint32_t processors = 0;   // locations that ran grains
  uint32_t grains = 0;       // task-graph nodes of this run (differs if the program is not the same)
  TimeNs measured_ns = 0;    // EPA total time: latest stop, from the origin (initialisation included)
  TimeNs corrected_ns = 0;   // latest stop - earliest start (what TaskGrapher projects)
  TimeNs projected_ns = 0;   // projected makespan on `processors`
  double error = 0;          // (projected - measured) / measured
  double corrected_error = 0;  // (projected - corrected) / corrected
  double measured_speedup = 0;   // EPA speedup: sum of grain times / total time
  double projected_speedup = 0;  // work / projected makespan
  // The projection's error, split in three (multiplied, they give the corrected error):
  //   model      the run's own schedule in the model (ScheduleOfAssignment: each grain on the
  //              processor and in the order it ran, with this run's grain times and arc costs)
  //              against its corrected time: what the model leaves out (time outside grains)
  //   times      that schedule with the measured run's grain times and arc costs instead of this
  //              run's (0 for the measured run; only when both runs number grains by grain id
  //              and ran the same ones, else 0 with times_compared false)
  //   scheduler  the projection against that: a different assignment and order
  TimeNs replayed_ns = 0;
  TimeNs replayed_with_measured_ns = 0;
  bool times_compared = false;
  double model_error = 0;      // (replayed - corrected) / corrected
  double times_error = 0;      // (replayed_with_measured - replayed) / replayed
  double scheduler_error = 0;  // (projected - replayed_with_measured) / replayed_with_measured
};

// What the projection assumes, in words (predict prints it).
inline constexpr const char* kPredictionModel =
    "identical processors; each grain takes its measured time; an arc costs its message's measured time "
    "(send begin to arrival, the receiver's waiting excluded), paid only between processors and overlapping "
    "computation; time outside grains (calls, idle, overhead) is not modelled";

struct Prediction {
  std::string heuristic;  // as requested (hlfet, ..., best)
  TimeNs work_ns = 0;     // sum of grain times of the measured run: the one-processor run time
  uint32_t tasks = 0;
  size_t edges = 0;
  std::vector<SpeedupPoint> curve;  // makespans in ns
  RunComparison measured;           // the run the task graph comes from
  std::vector<RunComparison> actual;
};

struct NamedTrace {
  std::string file;
  const Trace* trace = nullptr;
};

Result<Prediction> Predict(const NamedTrace& measured, const std::vector<NamedTrace>& actual, Heuristic h,
                           uint32_t from, uint32_t to, const PortfolioOptions& o);

}  // namespace grainscope
