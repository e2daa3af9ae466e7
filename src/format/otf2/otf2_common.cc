#include "format/otf2/otf2_common.h"

#include <cstdarg>
#include <fstream>
#include <mutex>

#include <fmt/format.h>

namespace grainscope::otf2 {
namespace {

bool IsMpiWaitName(std::string_view name) {
  return name.starts_with("MPI_Wait") || name.starts_with("MPI_Test");
}

OTF2_ErrorCode IgnoreError(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                           const char*, va_list) {
  return code;
}

}  // namespace

RegionRole RoleOf(OTF2_RegionRole role, OTF2_Paradigm paradigm, std::string_view name,
                  std::string_view description) {
  switch (role) {
    case OTF2_REGION_ROLE_POINT2POINT:
      return RegionRole::kPointToPoint;
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER:
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
    case OTF2_REGION_ROLE_COLL_OTHER:
      return RegionRole::kCollective;
    case OTF2_REGION_ROLE_TASK:
    case OTF2_REGION_ROLE_TASK_UNTIED:
      return RegionRole::kGrain;  // a task is a task-graph node: the seed's grain
    case OTF2_REGION_ROLE_UNKNOWN:
      return RegionRole::kOther;
    default:
      break;
  }
  if (paradigm == OTF2_PARADIGM_MPI && role == OTF2_REGION_ROLE_FUNCTION &&
      (IsMpiWaitName(name) || description == kWaitDescription)) {
    return RegionRole::kWait;
  }
  return RegionRole::kFunction;
}

Otf2RegionKind Otf2KindOf(RegionRole role, std::string_view name) {
  switch (role) {
    case RegionRole::kGrain:
      return {OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_USER, false};
    case RegionRole::kFunction:
      return {OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER, false};
    case RegionRole::kPointToPoint:
      return {OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI, false};
    case RegionRole::kCollective:
      // The cast: clang rejects the narrowing of the conditional's enum type in a braced init.
      return {static_cast<OTF2_RegionRole>(name.find("arrier") != std::string_view::npos ? OTF2_REGION_ROLE_BARRIER
                                                                                         : OTF2_REGION_ROLE_COLL_OTHER),
              OTF2_PARADIGM_MPI, false};
    case RegionRole::kWait:
      return {OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI, !IsMpiWaitName(name)};
    case RegionRole::kOther:
      break;
  }
  return {OTF2_REGION_ROLE_UNKNOWN, OTF2_PARADIGM_USER, false};
}

CollectiveOp CollectiveOpOf(OTF2_CollectiveOp op) {
  switch (op) {
    case OTF2_COLLECTIVE_OP_BARRIER: return CollectiveOp::kBarrier;
    case OTF2_COLLECTIVE_OP_BCAST: return CollectiveOp::kBroadcast;
    case OTF2_COLLECTIVE_OP_GATHER:
    case OTF2_COLLECTIVE_OP_GATHERV: return CollectiveOp::kGather;
    case OTF2_COLLECTIVE_OP_SCATTER:
    case OTF2_COLLECTIVE_OP_SCATTERV: return CollectiveOp::kScatter;
    case OTF2_COLLECTIVE_OP_ALLGATHER:
    case OTF2_COLLECTIVE_OP_ALLGATHERV: return CollectiveOp::kAllgather;
    case OTF2_COLLECTIVE_OP_ALLTOALL:
    case OTF2_COLLECTIVE_OP_ALLTOALLV:
    case OTF2_COLLECTIVE_OP_ALLTOALLW: return CollectiveOp::kAlltoall;
    case OTF2_COLLECTIVE_OP_ALLREDUCE: return CollectiveOp::kAllreduce;
    case OTF2_COLLECTIVE_OP_REDUCE: return CollectiveOp::kReduce;
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER:
    case OTF2_COLLECTIVE_OP_REDUCE_SCATTER_BLOCK: return CollectiveOp::kReduceScatter;
    case OTF2_COLLECTIVE_OP_SCAN:
    case OTF2_COLLECTIVE_OP_EXSCAN: return CollectiveOp::kScan;
    default: return CollectiveOp::kOther;  // window/handle creation and the like
  }
}

OTF2_CollectiveOp Otf2CollectiveOpOf(CollectiveOp op) {
  switch (op) {
    case CollectiveOp::kBarrier: return OTF2_COLLECTIVE_OP_BARRIER;
    case CollectiveOp::kBroadcast: return OTF2_COLLECTIVE_OP_BCAST;
    case CollectiveOp::kReduce: return OTF2_COLLECTIVE_OP_REDUCE;
    case CollectiveOp::kAllreduce: return OTF2_COLLECTIVE_OP_ALLREDUCE;
    case CollectiveOp::kGather: return OTF2_COLLECTIVE_OP_GATHER;
    case CollectiveOp::kScatter: return OTF2_COLLECTIVE_OP_SCATTER;
    case CollectiveOp::kAllgather: return OTF2_COLLECTIVE_OP_ALLGATHER;
    case CollectiveOp::kAlltoall: return OTF2_COLLECTIVE_OP_ALLTOALL;
    case CollectiveOp::kScan: return OTF2_COLLECTIVE_OP_SCAN;
    case CollectiveOp::kReduceScatter: return OTF2_COLLECTIVE_OP_REDUCE_SCATTER;
    case CollectiveOp::kOther: break;
  }
  // OTF2 has no "other": CREATE_HANDLE is one CollectiveOpOf maps back to kOther.
  return OTF2_COLLECTIVE_OP_CREATE_HANDLE;
}

Status Otf2Error(OTF2_ErrorCode code, std::string_view what) {
  return DataLoss(fmt::format("{}: {}: {}", what, OTF2_Error_GetName(code),
                              OTF2_Error_GetDescription(code)));
}

void SilenceOtf2Errors() {
  static std::once_flag once;
  std::call_once(once, [] { OTF2_Error_RegisterCallback(&IgnoreError, nullptr); });
}

bool HasOtf2Signature(const std::string& path) {
  char head[8] = {};
  std::ifstream in(path, std::ios::binary);
  in.read(head, sizeof head);
  return std::string_view(head, static_cast<size_t>(in.gcount())).find("OTF2") != std::string_view::npos;
}

}  // namespace grainscope::otf2
