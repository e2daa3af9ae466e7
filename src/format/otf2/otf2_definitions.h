// Reads an OTF2 archive's global definitions and adds the Trace's definitions to a TraceBuilder:
// locations (from locations and location groups), regions, communicators (from comms and groups).
//
// What the event reader then needs to translate OTF2 references into Trace ids is returned as
// flat tables indexed by the OTF2 reference, so translating an event costs one array access.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <otf2/otf2.h>

#include "base/status.h"
#include "model/trace_builder.h"

namespace grainscope::otf2 {

// Timestamps in ticks -> nanoseconds, exactly (floor) and without 128-bit division.
class TickConverter {
 public:
  // `shift_ns` is subtracted from every converted time (see kTimeShiftProperty).
  explicit TickConverter(uint64_t ticks_per_second = 1'000'000'000, TimeNs shift_ns = 0)
      : resolution_(ticks_per_second), shift_ns_(shift_ns) {}
  uint64_t resolution() const { return resolution_; }
  TimeNs ToNs(uint64_t ticks) const {
    if (resolution_ == kNsPerSecond) return static_cast<TimeNs>(ticks) - shift_ns_;
    const uint64_t whole = ticks / resolution_;
    const uint64_t rest = ticks % resolution_;  // < resolution_, so rest * 1e9 fits for <= 18 GHz
    return static_cast<TimeNs>(whole * kNsPerSecond + rest * kNsPerSecond / resolution_) - shift_ns_;
  }

 private:
  static constexpr uint64_t kNsPerSecond = 1'000'000'000;
  uint64_t resolution_;
  TimeNs shift_ns_;
};

// An OTF2 communicator as the event reader sees it.
struct CommInfo {
  bool defined = false;
  CommunicatorId id;                // invalid for the writer's "no communicator"
  bool self = false;                // MPI_COMM_SELF-like: every rank 0 is the location itself
  bool thread_team = false;         // grainscope's kThreadTeamName: no communicator of the model
  std::vector<LocationId> members;  // members[rank]
  std::string name;
};

struct Otf2Definitions {
  TickConverter clock;
  bool has_clock_properties = false;
  TimeNs global_offset_ns = 0;

  std::vector<uint64_t> location_refs;         // by LocationId: the OTF2 location reference
  std::vector<uint64_t> location_event_counts;  // by LocationId: the count the definition states
  std::vector<RegionId> region_of_ref;          // by OTF2 region ref; invalid when undefined
  // By OTF2 region ref: a barrier of threads (role BARRIER or IMPLICIT_BARRIER of a paradigm other
  // than MPI: Score-P's "!$omp implicit barrier"), whose entries become barrier sync events.
  std::vector<uint8_t> thread_barrier_region;
  std::vector<uint32_t> process_of;             // by LocationId: its process's (group leader's) index
  std::vector<CommInfo> comm_of_ref;            // by OTF2 comm ref
  std::vector<std::string> strings;             // by OTF2 string ref

  // grainscope's own attributes and marker parameter, when the archive defines them.
  OTF2_AttributeRef message_key_attribute = OTF2_UNDEFINED_ATTRIBUTE;
  OTF2_AttributeRef message_name_attribute = OTF2_UNDEFINED_ATTRIBUTE;
  OTF2_AttributeRef message_grain_attribute = OTF2_UNDEFINED_ATTRIBUTE;
  OTF2_ParameterRef marker_parameter = OTF2_UNDEFINED_PARAMETER;
  OTF2_AttributeRef sync_object_attribute = OTF2_UNDEFINED_ATTRIBUTE;
  OTF2_AttributeRef sync_arg_attribute = OTF2_UNDEFINED_ATTRIBUTE;

  std::string_view String(uint32_t ref) const {
    return ref < strings.size() ? std::string_view(strings[ref]) : std::string_view();
  }
};

// Reads the global definitions of `reader` and adds locations, regions and communicators to
// `builder`. `file` is used in messages.
Result<Otf2Definitions> ReadOtf2Definitions(OTF2_Reader* reader, TraceBuilder& builder,
                                            std::string_view file);

}  // namespace grainscope::otf2
