#include "model/trace_script.h"

#include <cstdlib>
#include <iostream>

namespace grainscope {

TraceScript::TraceScript(int locations, LocationKind kind) {
  for (int l = 0; l < locations; ++l)
    locs_.push_back(b_.AddLocation(std::string(LocationKindName(kind)) + " " + std::to_string(l), kind, l));
  world_ = b_.AddCommunicator("world", locs_);
}

RegionId TraceScript::Region(const std::string& name, RegionRole role) {
  auto it = regions_.find(name);
  if (it != regions_.end()) return it->second;
  RegionId id = b_.AddRegion(name, role, static_cast<int64_t>(regions_.size()));
  regions_.emplace(name, id);
  return id;
}

void TraceScript::Work(int l, const std::string& region, TimeNs start, TimeNs stop, RegionRole role) {
  RegionId r = Region(region, role);
  b_.Enter(locs_[l], start, r);
  b_.Leave(locs_[l], stop, r);
}

MessageId TraceScript::Message(int from, int to, int32_t tag, uint64_t bytes) {
  MessageInfo info;
  info.sender = locs_[from];
  info.receiver = locs_[to];
  info.tag = tag;
  info.bytes = bytes;
  info.communicator = world_;
  return b_.AddMessage(info);
}

void TraceScript::Send(int l, MessageId m, TimeNs t, TimeNs leave) {
  RegionId r = Region("MPI_Send", RegionRole::kPointToPoint);
  b_.Enter(locs_[l], t, r);
  b_.Send(locs_[l], t, m);
  b_.Leave(locs_[l], leave < 0 ? t : leave, r);
}

void TraceScript::Recv(int l, MessageId m, TimeNs enter, TimeNs done) {
  RegionId r = Region("MPI_Recv", RegionRole::kPointToPoint);
  b_.Enter(locs_[l], enter, r);
  b_.Recv(locs_[l], done, m);
  b_.Leave(locs_[l], done, r);
}

CommunicatorId TraceScript::Communicator(const std::string& name, const std::vector<int>& members) {
  std::vector<LocationId> locs;
  for (int m : members) locs.push_back(locs_[m]);
  return b_.AddCommunicator(name, std::move(locs));
}

CollectiveId TraceScript::Collective(CollectiveOp op, int root, CommunicatorId comm) {
  return b_.AddCollective(op, comm.valid() ? comm : world_, root < 0 ? LocationId() : locs_[root]);
}

void TraceScript::Join(int l, CollectiveId c, TimeNs enter, TimeNs leave, const std::string& call, uint64_t bytes) {
  RegionId r = Region(call, RegionRole::kCollective);
  b_.Enter(locs_[l], enter, r);
  b_.CollBegin(locs_[l], enter, c, bytes, bytes);
  b_.CollEnd(locs_[l], leave, c);
  b_.Leave(locs_[l], leave, r);
}

Trace TraceScript::Finish() {
  Result<Trace> t = b_.Finish();
  if (!t.ok()) {
    std::cerr << "TraceScript: " << t.status().message() << "\n";
    std::abort();
  }
  return std::move(t).value();
}

}  // namespace grainscope
