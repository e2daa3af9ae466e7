// Reader for OTF2 archives (Score-P, Scalasca, Vampir; and grainscope's own OTF2 writer), through
// Debian's libotf2. docs/formats/otf2.md describes the mapping onto the Trace model:
//
//   * locations: MPI ranks (kRank, external id = rank), other process leaders (kProcess), their
//     further locations (kThread, grouped with the leader); metric-only locations are dropped;
//   * regions with roles from OTF2's region role and paradigm (MPI_Wait*/MPI_Test* -> kWait);
//   * MpiSend/MpiIsend/MpiRecv/MpiIrecv matched per (communicator, sender, receiver, tag) in FIFO
//     order, non-blocking operations completed through their requests; unmatched ones are kept as
//     message rows with one side missing and counted ("sends_without_receive", "receives_without_send");
//   * collectives matched per communicator by sequence number;
//   * thread fork/join and team begin/end as markers;
//   * every other record kind counted under "skipped_records".
// Times are the archive's ticks converted to ns; the origin is the clock's global offset, else
// the earliest ProgramBegin, else the first event.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "format/format_names.h"
#include "format/importer.h"
#include "model/trace.h"
#include "model/share_exchange.h"
#include "model/trace_share.h"

namespace grainscope {

// `anchor_path` is the archive's anchor file (traces.otf2) or a directory holding exactly one.
// Improper nesting is repaired by the TraceBuilder (trace_builder.h) and a missing or unreadable
// location file counted ("missing_location_files"); `options.strict` refuses both.
Result<Trace> ReadOtf2(const std::string& anchor_path, const ReadOptions& options = {});

// Share `share_index` of `share_count` (model/trace_share.h): every definition, and the events of
// the share's processes only (ShareLocations: consecutive processes with about equal event
// counts). For grainscope-mpi's analysis ranks.
Result<TraceShare> ReadOtf2Share(const std::string& anchor_path, const ReadOptions& options, uint32_t share_index,
                                 uint32_t share_count);
// The share `exchange.index()` of `exchange.count()`, completed by the other shares, which read
// theirs at the same time (model/share_exchange.h): its messages and collectives have every end,
// the other shares' ends as ghost events on their locations.
Result<TraceShare> ReadOtf2Share(const std::string& anchor_path, const ReadOptions& options, ShareExchange& exchange);
// The anchor file `path` names: itself, or the one .otf2 file in the directory `path`.
Result<std::string> FindOtf2Anchor(const std::string& path);

// The OTF2 reader in the registry (format/registry.cc): a reader of paths, sure of a *.otf2 name
// or a directory holding an anchor file.
extern const Importer kOtf2Importer;

}  // namespace grainscope
