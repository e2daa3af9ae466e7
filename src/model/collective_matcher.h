// How readers that see a collective operation once per participant (OTF2's MpiCollectiveBegin/End
// per location, libgrainscope-mpi's "mpi.coll" markers per rank) tell which records are one
// operation. MPI requires every member of a communicator to call its collectives in the same
// order, so the k-th collective a participant takes part in on a communicator is instance k of
// that communicator. Communicators and participants are dense integer ids (ChannelIds in
// message_matcher.h gives them), so a lookup hashes two integers.
//
//   CollectiveMatcher m;
//   for each participant, in its own order:  seq = m.Next(comm, participant);   // 0, 1, 2, ...
//   records with equal (comm, seq) are one collective instance.
#pragma once

#include <cstdint>
#include <unordered_map>

namespace grainscope {

class CollectiveMatcher {
 public:
  // The sequence number on `communicator` of `participant`'s next collective there (0 for its
  // first). Call in each participant's order; participants may interleave.
  uint32_t Next(uint32_t communicator, uint32_t participant) {
    return seen_[(uint64_t{communicator} << 32) | participant]++;
  }

 private:
  std::unordered_map<uint64_t, uint32_t> seen_;  // (communicator, participant) -> collectives seen
};

}  // namespace grainscope
