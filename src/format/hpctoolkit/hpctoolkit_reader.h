// Reader for HPCToolkit databases (docs/formats/hpctoolkit.md): the directory hpcprof writes, of
// which grainscope reads meta.db (the calling context tree and its names), profile.db (which
// thread of which rank each profile is) and trace.db (each thread's samples: a time and the
// calling context it was in), format version 4 as their FORMATS.md describes it.
//
// Mapping onto the Trace model, as HPCToolkit's trace view and Pipit read the samples: one
// location per trace line ("rank 1 thread 0", kind thread, grouped by rank); a sample's calling
// context is a path of the tree's entry point, functions and loops (its source lines and
// instructions belong to the function or loop around them); between two samples the regions of
// the path the later one no longer shares are left and those it adds entered, at the later
// sample's time; a sample in context 0 (the thread not running) leaves them all, and the trace's
// end leaves what is still open. Regions are named by function ("MPI_Send" takes MPI's role),
// loops "loop at ping-pong.c:40", entry points by their name ("main thread"). Times are
// nanoseconds since the epoch; the origin is the traces' first sample.
#pragma once

#include <string>

#include "base/status.h"
#include "format/importer.h"
#include "model/trace.h"

namespace grainscope {

Result<Trace> ReadHpctoolkit(const std::string& path, const ReadOptions& options = {});

// True when `path` is a directory holding meta.db and trace.db.
bool LooksLikeHpctoolkit(const std::string& path);

extern const Importer kHpctoolkitImporter;

}  // namespace grainscope
