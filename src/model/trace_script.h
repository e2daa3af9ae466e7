// TraceScript: a terse way to write small traces with exact timestamps in tests.
//
//   TraceScript s(2);                         // two ranks
//   MessageId m = s.Message(0, 1);
//   s.Work(0, "solve", 0, 10);                // rank 0 runs "solve" from 0 to 10 ns
//   s.Send(0, m, 10);                         // MPI_Send at 10 (enter, send, leave)
//   s.Recv(1, m, 0, 12);                      // MPI_Recv entered at 0, completed at 12
//   Trace t = s.Finish();
// Events must be added in time order per location (the builder checks it).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/trace_builder.h"

namespace grainscope {

class TraceScript {
 public:
  explicit TraceScript(int locations, LocationKind kind = LocationKind::kRank);

  RegionId Region(const std::string& name, RegionRole role = RegionRole::kFunction);
  LocationId loc(int l) const { return locs_[l]; }
  TraceBuilder& builder() { return b_; }

  void Work(int l, const std::string& region, TimeNs start, TimeNs stop, RegionRole role = RegionRole::kFunction);
  void Enter(int l, const std::string& region, TimeNs t) { b_.Enter(locs_[l], t, Region(region)); }
  void Leave(int l, const std::string& region, TimeNs t) { b_.Leave(locs_[l], t, Region(region)); }

  MessageId Message(int from, int to, int32_t tag = 0, uint64_t bytes = 0);
  // MPI_Send entered at `t`, message leaves at `t`, call left at `leave` (default: `t`).
  void Send(int l, MessageId m, TimeNs t, TimeNs leave = -1);
  // MPI_Recv entered at `enter`, message received and call left at `done`.
  void Recv(int l, MessageId m, TimeNs enter, TimeNs done);

  // A communicator of the given locations (in their rank order); "world" holds them all.
  CommunicatorId Communicator(const std::string& name, const std::vector<int>& members);
  // A collective on `comm` (default: world); `root` is a location index, -1 for none.
  CollectiveId Collective(CollectiveOp op, int root = -1, CommunicatorId comm = {});
  // The collective's call region `call` entered at `enter` (begin) and left at `leave` (end).
  void Join(int l, CollectiveId c, TimeNs enter, TimeNs leave, const std::string& call = "MPI_Collective",
            uint64_t bytes = 0);

  Trace Finish();

 private:
  TraceBuilder b_{"script"};
  std::vector<LocationId> locs_;
  std::map<std::string, RegionId> regions_;
  CommunicatorId world_;
};

}  // namespace grainscope
