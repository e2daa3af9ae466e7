// The `predict` report: the seed's projected run times.
// Writers never compute: every number comes from the result structs (report/render_options.h).
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "report/render_options.h"
#include "schedule/predict.h"

namespace grainscope {

Result<std::string> RenderPrediction(const Prediction& p, const RenderOptions& o);

}  // namespace grainscope
