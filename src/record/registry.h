// Definitions: the regions (from the programs' static descriptors and the seed's grain ids) and
// the strings (message names, marker labels, thread names) that event records refer to by id.
//
// Registration is the slow path, taken once per call site or name: it takes a lock, copies the
// definition (so it can be written again into a trace opened later) and appends its definition
// chunk to the trace at once, so a run that crashes has every definition its events need.
// Looking a name up again is lock-free: an open-addressing table of immutable entries that are
// published with a release store and never removed.
#pragma once

#include <cstddef>
#include <cstdint>

#include "grainscope/trace.h"
#include "record/visibility.h"

namespace grainscope::record {

// The region id of a descriptor, registering it the first time. 0 when not recording.
uint32_t RegisterRegion(gs_region* region);

// The id of `text` (length `size`). 0 when not recording or when the table is full.
uint32_t InternString(const char* text, size_t size);

// The region of the seed's grain `grain_id` ("grain <id>", role grain, external id grain_id).
uint32_t SeedGrainRegion(int64_t grain_id);

// Writes every definition made so far into a newly opened trace. Called by the runtime while it
// holds the definitions lock (see LockDefinitions).
void RewriteDefinitions();

// The lock that serialises definition chunks (and other small chunks written outside the event
// streams) and its writer slot.
void LockDefinitions();
void UnlockDefinitions();
// Writes a small chunk (not an event block). Caller holds the definitions lock.
bool WriteSmallChunk(uint32_t type, uint32_t stream, const void* payload, uint32_t size);

}  // namespace grainscope::record
