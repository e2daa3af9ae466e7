// Reader for a directory of Chrome JSON files, one per rank of one distributed job, as the
// PyTorch profiler (Kineto) writes them: each file names its rank and the job's size,
//
//   {"distributedInfo": {"backend": "nccl", "rank": 1, "world_size": 128}, "traceEvents": [...]}
//
// The files become ONE trace (docs/formats/chrome.md, "A directory of ranks"):
//   * each file is read as ReadChromeJson reads one, its locations named "rank <r> <track>", in
//     rank order; regions are merged by (name, category); times are every file's own absolute
//     times (the ranks' clocks are taken as they are), the trace starting at the earliest;
//   * a trace is one run (format/one_run.h, a run being a world size and backend): a file of
//     another run, or a second file of one rank, is not merged (other_run_files); a file that cannot be read
//     is skipped (unreadable_rank_files); ranks below the world size without a file are named
//     (missing_rank_files). --strict refuses all three.
// NCCL collectives are not matched across ranks yet: each rank's kernels are its own slices.
#pragma once

#include <string>

#include "format/importer.h"

namespace grainscope {

// True when `path` is a directory whose first *.json file (by name) names its rank
// ("distributedInfo" in its first 64 KiB).
bool LooksLikeChromeRankDirectory(const std::string& path);

// The rank directory reader in the registry (format/registry.cc): a reader of paths.
extern const Importer kChromeRanksImporter;

}  // namespace grainscope
