// How the OTF2 writer writes the thread model (model/thread_sync.h): sync events as OTF2's thread
// records where OTF2 has one, thread barriers as collectives on their team's communicator
// (docs/formats/otf2.md, "Threads"). Internal to gs_otf2 (otf2_writer.cc).
//
// Definitions do not grow with the run: one communicator per set of threads that meets at
// barriers or forms a team (kThreadTeamName), however many barrier instances, teams or barrier
// objects (the OMPT tool names a barrier after its team: one object per parallel region) there
// are; one contingent (all locations) for the create/wait threads and the tasks.
//
// Every record written carries the sync event's object (and argument when not 0) as attributes,
// so that ReadOtf2 gives back the same sync events, hence the same dependency edges and barrier
// instances. Sync events OTF2 has no record for (lock requests, condition variables, a join's
// begin, a barrier arrival never left) stay markers ("sync.<kind> <object> <argument>").
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

#include <otf2/otf2.h>

#include "model/sync_table.h"
#include "model/trace.h"

namespace grainscope::otf2 {

class Otf2ThreadWriter {
 public:
  explicit Otf2ThreadWriter(const Trace& trace);

  // Team communicators are written with references first_team_ref, first_team_ref + 1, ...;
  // the attributes with the given references.
  void SetReferences(uint32_t first_team_ref, OTF2_AttributeRef object_attribute, OTF2_AttributeRef arg_attribute) {
    first_team_ref_ = first_team_ref;
    object_attribute_ = object_attribute;
    arg_attribute_ = arg_attribute;
  }

  // Whether model communicator c is a thread barrier's ("barrier <object>"): not written itself.
  bool IsThreadBarrier(uint32_t c) const { return c < barrier_.size() && barrier_[c].team != kNoTeam; }
  // Whether sync event row `row` is written as a marker (no OTF2 record holds it).
  bool IsMarker(uint32_t row) const;
  bool any_records() const { return any_records_; }  // the attributes must be defined
  bool any_markers() const { return any_markers_; }

  // Writes sync event `row` of `loc` as its OTF2 record (not for IsMarker rows).
  OTF2_ErrorCode WriteSync(OTF2_EvtWriter* w, OTF2_AttributeList* attrs, OTF2_TimeStamp ts, LocationId loc,
                           uint32_t row);
  // A thread barrier instance's begin and end on the team's communicator.
  OTF2_ErrorCode WriteBarrierBegin(OTF2_EvtWriter* w, OTF2_TimeStamp ts);
  OTF2_ErrorCode WriteBarrierEnd(OTF2_EvtWriter* w, OTF2_AttributeList* attrs, OTF2_TimeStamp ts, uint32_t c);

  // The teams' members (location indices) in team order: their communicators and groups.
  const std::vector<std::vector<uint64_t>>& teams() const { return teams_; }

 private:
  static constexpr uint32_t kNoTeam = UINT32_MAX;
  struct Barrier {
    uint64_t object = 0;
    uint32_t team = kNoTeam;
  };
  // A thread object: a team (OpenMP: several threads begin it, or its creator is one of them)
  // is written as ThreadFork/TeamBegin/TeamEnd/Join, any other as ThreadCreate/Begin/End/Wait.
  struct Thread {
    uint32_t creator = UINT32_MAX;
    std::vector<uint32_t> begins;  // locations, sorted and unique after the scan
    uint32_t team = kNoTeam;
  };
  struct Lock {
    uint32_t id = 0;
    uint32_t acquisitions = 0;
  };

  uint32_t TeamOf(std::vector<uint64_t> members);
  uint32_t Contingent();
  void ScanSyncs();
  OTF2_AttributeList* Attributes(OTF2_AttributeList* attrs, uint64_t object, uint32_t arg) const;
  OTF2_CommRef TeamRef(uint32_t team) const { return first_team_ref_ + team; }

  const Trace& t_;
  std::vector<Barrier> barrier_;  // by model communicator
  std::vector<std::vector<uint64_t>> teams_;
  std::map<std::vector<uint64_t>, uint32_t> team_of_members_;
  uint32_t contingent_ = kNoTeam;
  std::unordered_map<uint64_t, Thread> threads_;
  std::unordered_map<uint64_t, Lock> locks_;
  OTF2_Paradigm paradigm_ = OTF2_PARADIGM_PTHREAD;
  bool any_records_ = false;
  bool any_markers_ = false;
  uint32_t first_team_ref_ = 0;
  OTF2_AttributeRef object_attribute_ = 0;
  OTF2_AttributeRef arg_attribute_ = 0;
};

}  // namespace grainscope::otf2
