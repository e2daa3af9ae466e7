// What the OTF2 reader and writer share: how OTF2's region roles and collective operations map onto
// the Trace model (in both directions), the names of the definitions grainscope adds to the
// archives it writes, and turning libotf2 error codes into a Status.
//
// The archive-level conventions are documented for users in docs/formats/otf2.md.
#pragma once

#include <string>
#include <string_view>

#include <otf2/otf2.h>

#include "base/status.h"
#include "model/trace.h"

namespace grainscope::otf2 {

// Attributes grainscope attaches to MpiSend/MpiIsend/MpiRecv/MpiIrecv records. The key makes the
// reader pair exactly the records the writer paired (seed text arcs need not be FIFO per channel);
// the name and grain keep the seed's structure name and producing/consuming grain.
inline constexpr std::string_view kMessageKeyAttribute = "grainscope::message_key";    // UINT64
inline constexpr std::string_view kMessageNameAttribute = "grainscope::message_name";  // STRING
inline constexpr std::string_view kMessageGrainAttribute = "grainscope::grain";        // REGION
// A STRING parameter whose ParameterString records are the Trace's markers.
inline constexpr std::string_view kMarkerParameter = "grainscope::marker";
// Location properties that keep the Trace's location kind and external id.
inline constexpr std::string_view kLocationKindProperty = "grainscope::kind";              // STRING
inline constexpr std::string_view kLocationExternalIdProperty = "grainscope::external_id";  // INT64
// The communicator the writer invents for messages that have none (seed text arcs). The reader
// gives its messages no communicator again and does not list it.
inline constexpr std::string_view kNoCommunicatorName = "grainscope::no_communicator";
// Thread synchronisation as grainscope writes it (docs/formats/otf2.md, "Threads"): OTF2's thread
// records (ThreadAcquireLock, ThreadCreate, ThreadFork, ThreadTaskCreate ...) and the
// MpiCollectiveEnd of a thread barrier carry the model's sync object (a lock's address, a thread's
// or barrier's id: more than OTF2's 32-bit lock ids and team-relative numbers hold) and, when not
// 0, its argument; the reader takes such a record as exactly that sync event.
inline constexpr std::string_view kSyncObjectAttribute = "grainscope::sync_object";  // UINT64
inline constexpr std::string_view kSyncArgAttribute = "grainscope::sync_arg";        // UINT32
// Communicators the writer defines for thread teams: one per set of threads that meet at thread
// barriers or begin a team together ("grainscope::thread_team 0", ...), whatever the number of
// barrier instances or teams. They are no communicators of the model.
inline constexpr std::string_view kThreadTeamName = "grainscope::thread_team";
// Region descriptions "grainscope::<role name>" (model/region_roles.h) mark a region whose role
// OTF2's role and paradigm do not say ("grainscope::wait": a wait call not named MPI_Wait*).
inline constexpr std::string_view kRoleDescriptionPrefix = "grainscope::";
inline constexpr std::string_view kWaitDescription = "grainscope::wait";
std::string_view RoleDescription(RegionRole role);  // "grainscope::kernel", ...
// Archive property holding the Trace's metadata as a JSON object of strings.
inline constexpr const char* kMetadataProperty = "GRAINSCOPE::METADATA";
// Archive property: OTF2 timestamps are unsigned, so a Trace with negative times is written
// shifted by this many ns, which the reader subtracts again.
inline constexpr const char* kTimeShiftProperty = "GRAINSCOPE::TIME_SHIFT_NS";

// The Trace role OTF2's role, paradigm and description say a region has. The builder makes it
// precise from the name (TraceBuilder::AddRegion: MPI_Wait*/MPI_Test* are plain FUNCTIONs in
// Score-P traces).
RegionRole RoleOf(OTF2_RegionRole role, OTF2_Paradigm paradigm, std::string_view description);

// The OTF2 role and paradigm the writer uses for a region; RoleOf maps them back.
struct Otf2RegionKind {
  OTF2_RegionRole role;
  OTF2_Paradigm paradigm;
  bool role_description;  // write RoleDescription(role) as the region's description
};
Otf2RegionKind Otf2KindOf(RegionRole role, std::string_view name);

CollectiveOp CollectiveOpOf(OTF2_CollectiveOp op);
OTF2_CollectiveOp Otf2CollectiveOpOf(CollectiveOp op);


// "<what>: <OTF2 error name>: <its description>".
Status Otf2Error(OTF2_ErrorCode code, std::string_view what);

// libotf2 prints every error to stderr unless told otherwise; grainscope reports errors itself.
void SilenceOtf2Errors();

// True when the file `path` starts like an OTF2 anchor file ("\x03BOTF2\0": a chunk header, then
// the signature). The reader checks it before libotf2 opens a file (libotf2 leaks its archive
// object when it fails to open something else); the writer before it replaces an archive.
bool HasOtf2Signature(const std::string& path);

}  // namespace grainscope::otf2
