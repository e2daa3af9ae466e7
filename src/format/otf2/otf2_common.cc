#include "format/otf2/otf2_common.h"

#include <cstdarg>
#include <fstream>
#include <mutex>

#include <fmt/format.h>

namespace grainscope::otf2 {
namespace {

OTF2_ErrorCode IgnoreError(void*, const char*, uint64_t, const char*, OTF2_ErrorCode code,
                           const char*, va_list) {
  return code;
}

}  // namespace

std::string_view RoleDescription(RegionRole role) {
  static const std::vector<std::string> kDescriptions = [] {
    std::vector<std::string> out;
    for (RegionRole r : AllRegionRoles()) out.push_back(fmt::format("{}{}", kRoleDescriptionPrefix, RegionRoleName(r)));
    return out;
  }();
  return kDescriptions[static_cast<size_t>(role)];
}

namespace {

RegionRole RoleOfParadigm(OTF2_RegionRole role, OTF2_Paradigm paradigm) {
  switch (paradigm) {
    case OTF2_PARADIGM_OPENMP: return role == OTF2_REGION_ROLE_FUNCTION ? RegionRole::kFunction : RegionRole::kOpenMp;
    case OTF2_PARADIGM_PTHREAD: return RegionRole::kThreadSync;
    case OTF2_PARADIGM_CUDA:
    case OTF2_PARADIGM_HIP:
    case OTF2_PARADIGM_OPENCL:
      return role == OTF2_REGION_ROLE_DATA_TRANSFER ? RegionRole::kGpuMemcpy : RegionRole::kFunction;
    default: return RegionRole::kFunction;
  }
}

// OTF2's nearest role and paradigm for a model role (RoleOf reads them back).
Otf2RegionKind Otf2KindOfRole(RegionRole role) {
  auto kind = [](OTF2_RegionRole r, OTF2_Paradigm p) { return Otf2RegionKind{r, p, false}; };
  switch (role) {
    case RegionRole::kGrain: return kind(OTF2_REGION_ROLE_TASK, OTF2_PARADIGM_USER);
    case RegionRole::kFunction: return kind(OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    case RegionRole::kPointToPoint: return kind(OTF2_REGION_ROLE_POINT2POINT, OTF2_PARADIGM_MPI);
    case RegionRole::kCollective: return kind(OTF2_REGION_ROLE_COLL_OTHER, OTF2_PARADIGM_MPI);
    case RegionRole::kBarrier: return kind(OTF2_REGION_ROLE_BARRIER, OTF2_PARADIGM_MPI);
    case RegionRole::kOneSided: return kind(OTF2_REGION_ROLE_RMA, OTF2_PARADIGM_MPI);
    case RegionRole::kWait:
    case RegionRole::kMpiOther:
    case RegionRole::kInitFinalize: return kind(OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_MPI);
    case RegionRole::kThreadSync: return kind(OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_PTHREAD);
    case RegionRole::kOpenMp: return kind(OTF2_REGION_ROLE_CODE, OTF2_PARADIGM_OPENMP);
    case RegionRole::kGpuMemcpy: return kind(OTF2_REGION_ROLE_DATA_TRANSFER, OTF2_PARADIGM_CUDA);
    case RegionRole::kGpuKernel:
    case RegionRole::kGpuMemset:
    case RegionRole::kGpuLaunch:
    case RegionRole::kDeviceSync: return kind(OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_CUDA);
    case RegionRole::kCommCollective: return kind(OTF2_REGION_ROLE_FUNCTION, OTF2_PARADIGM_USER);
    case RegionRole::kIo: return kind(OTF2_REGION_ROLE_FILE_IO, OTF2_PARADIGM_USER);
    case RegionRole::kOther: break;
  }
  return kind(OTF2_REGION_ROLE_UNKNOWN, OTF2_PARADIGM_USER);
}

}  // namespace

RegionRole RoleOf(OTF2_RegionRole role, OTF2_Paradigm paradigm, std::string_view description) {
  RegionRole described;
  if (description.starts_with(kRoleDescriptionPrefix) &&
      ParseRegionRole(description.substr(kRoleDescriptionPrefix.size()), &described)) {
    return described;
  }
  switch (role) {
    case OTF2_REGION_ROLE_POINT2POINT: return RegionRole::kPointToPoint;
    case OTF2_REGION_ROLE_BARRIER:
    case OTF2_REGION_ROLE_IMPLICIT_BARRIER: return RegionRole::kBarrier;
    case OTF2_REGION_ROLE_COLL_ONE2ALL:
    case OTF2_REGION_ROLE_COLL_ALL2ONE:
    case OTF2_REGION_ROLE_COLL_ALL2ALL:
    case OTF2_REGION_ROLE_COLL_OTHER: return RegionRole::kCollective;
    case OTF2_REGION_ROLE_TASK:
    case OTF2_REGION_ROLE_TASK_UNTIED: return RegionRole::kGrain;  // a task is a task-graph node: the seed's grain
    case OTF2_REGION_ROLE_RMA: return paradigm == OTF2_PARADIGM_MPI ? RegionRole::kOneSided : RegionRole::kFunction;
    case OTF2_REGION_ROLE_FILE_IO:
    case OTF2_REGION_ROLE_FILE_IO_METADATA: return RegionRole::kIo;
    case OTF2_REGION_ROLE_THREAD_CREATE:
    case OTF2_REGION_ROLE_THREAD_WAIT: return RegionRole::kThreadSync;
    case OTF2_REGION_ROLE_UNKNOWN: return RegionRole::kOther;
    default: return RoleOfParadigm(role, paradigm);
  }
}

Otf2RegionKind Otf2KindOf(RegionRole role, std::string_view name) {
  const Otf2RegionKind kind = Otf2KindOfRole(role);
  // The description says what OTF2 cannot: read back, role, paradigm and name would give another.
  const bool described = ResolveRegionRole(RoleOf(kind.role, kind.paradigm, ""), name).role != role;
  return {kind.role, kind.paradigm, described};
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
