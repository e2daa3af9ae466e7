// Reader for OTF2 archives (Score-P, Scalasca, Vampir; and grainscope's own OTF2 writer), through
// Debian's libotf2. docs/formats/otf2.md describes the mapping onto the Trace model:
//
//   * locations: MPI ranks (kRank, external id = rank), other process leaders (kProcess), their
//     further locations (kThread, grouped with the leader); metric-only locations are dropped;
//   * regions with roles from OTF2's region role and paradigm (MPI_Wait*/MPI_Test* -> kWait);
//   * MpiSend/MpiIsend/MpiRecv/MpiIrecv matched per (communicator, sender, receiver, tag) in FIFO
//     order, non-blocking operations completed through their requests; unmatched ones are kept as
//     message rows with one side missing and counted ("unmatched_messages");
//   * collectives matched per communicator by sequence number;
//   * thread fork/join and team begin/end as markers;
//   * every other record kind counted under "skipped_records".
// Times are the archive's ticks converted to ns; the origin is the clock's global offset, else
// the earliest ProgramBegin, else the first event.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

inline constexpr std::string_view kOtf2Format = "otf2";

// `anchor_path` is the archive's anchor file (traces.otf2) or a directory holding exactly one.
Result<Trace> ReadOtf2(const std::string& anchor_path);

// The anchor file `path` names: itself, or the one .otf2 file in the directory `path`.
Result<std::string> FindOtf2Anchor(const std::string& path);

}  // namespace grainscope
