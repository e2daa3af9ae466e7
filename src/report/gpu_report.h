// The GPU section of `report` (analysis/regions/gpu_time.h): per rank busy, computation,
// communication (and how much of it overlapped computation), idle and the CPU's launch cost; per
// stream the same split; kernels by time. Only for traces with GPU streams.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/regions/gpu_time.h"
#include "model/trace.h"

namespace grainscope {

std::string GpuTimeText(const Trace& t, const GpuTime& gpu, size_t top);
// Adds "gpu": {"ranks": [...], "streams": [...], "kernels": [...]}.
void AddGpuTimeJson(const Trace& t, const GpuTime& gpu, nlohmann::ordered_json& j);

}  // namespace grainscope
