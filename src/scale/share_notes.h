// The notes of a trace read in shares (grainscope-mpi): each share's reader counts what it
// repaired or skipped in its own locations' events, and every share reads every definition. Share
// 0 prints a note every share has once (a definition's), and the others labelled with their share
// ("share 2 of 4: ..."), so that no share's repair goes unsaid and none is counted twice.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "model/diagnostics.h"
#include "model/share_exchange.h"

namespace grainscope {

// Every share calls it; share 0 gets the notes, the others none.
Result<std::vector<std::string>> GatherShareNotes(const Diagnostics& mine, ShareExchange& exchange);

}  // namespace grainscope
