// The .gst format's numbers for the model's enums: region roles (gst_format.h RegionRole) and
// sync kinds (SyncRecordKind), MPI collective operations (MpiCollOpNumber). One table each for the reader and the writer.
#pragma once

#include <array>
#include <cstdint>
#include <utility>

#include "format/gst/gst_format.h"
#include "model/region_roles.h"
#include "model/sync_table.h"
#include "model/trace.h"

namespace grainscope::gst {

inline constexpr std::array<std::pair<uint8_t, grainscope::RegionRole>, 19> kRoleNumbers = {{
    {kRoleFunction, grainscope::RegionRole::kFunction},
    {kRoleGrain, grainscope::RegionRole::kGrain},
    {kRoleOther, grainscope::RegionRole::kOther},
    {kRolePointToPoint, grainscope::RegionRole::kPointToPoint},
    {kRoleCollective, grainscope::RegionRole::kCollective},
    {kRoleBarrier, grainscope::RegionRole::kBarrier},
    {kRoleWait, grainscope::RegionRole::kWait},
    {kRoleOneSided, grainscope::RegionRole::kOneSided},
    {kRoleMpiOther, grainscope::RegionRole::kMpiOther},
    {kRoleInitFinalize, grainscope::RegionRole::kInitFinalize},
    {kRoleThreadSync, grainscope::RegionRole::kThreadSync},
    {kRoleOpenMp, grainscope::RegionRole::kOpenMp},
    {kRoleGpuKernel, grainscope::RegionRole::kGpuKernel},
    {kRoleGpuMemcpy, grainscope::RegionRole::kGpuMemcpy},
    {kRoleGpuMemset, grainscope::RegionRole::kGpuMemset},
    {kRoleGpuLaunch, grainscope::RegionRole::kGpuLaunch},
    {kRoleDeviceSync, grainscope::RegionRole::kDeviceSync},
    {kRoleCommCollective, grainscope::RegionRole::kCommCollective},
    {kRoleIo, grainscope::RegionRole::kIo},
}};
static_assert(kRoleNumbers.size() == grainscope::kRegionRoleCount);

// The model role of a file's role number. A communication call of kind unknown (kRoleCommunication,
// what the runtime's MPI wrapper writes) is a point-to-point call until its name says otherwise
// (TraceBuilder::AddRegion); a number of a later version is a function.
inline grainscope::RegionRole ModelRole(uint8_t number) {
  if (number == kRoleCommunication) return grainscope::RegionRole::kPointToPoint;
  for (const auto& [n, role] : kRoleNumbers)
    if (n == number) return role;
  return grainscope::RegionRole::kFunction;
}

inline uint8_t RoleNumber(grainscope::RegionRole role) {
  for (const auto& [n, r] : kRoleNumbers)
    if (r == role) return n;
  return kRoleOther;
}

inline constexpr std::array<std::pair<uint16_t, grainscope::SyncKind>, 17> kSyncNumbers = {{
    {kSyncLockRequest, grainscope::SyncKind::kLockRequest},
    {kSyncLockAcquired, grainscope::SyncKind::kLockAcquired},
    {kSyncLockRelease, grainscope::SyncKind::kLockRelease},
    {kSyncBarrierEnter, grainscope::SyncKind::kBarrierEnter},
    {kSyncBarrierLeave, grainscope::SyncKind::kBarrierLeave},
    {kSyncCondWaitBegin, grainscope::SyncKind::kCondWaitBegin},
    {kSyncCondWaitEnd, grainscope::SyncKind::kCondWaitEnd},
    {kSyncCondSignal, grainscope::SyncKind::kCondSignal},
    {kSyncCondBroadcast, grainscope::SyncKind::kCondBroadcast},
    {kSyncThreadCreate, grainscope::SyncKind::kThreadCreate},
    {kSyncThreadBegin, grainscope::SyncKind::kThreadBegin},
    {kSyncThreadEnd, grainscope::SyncKind::kThreadEnd},
    {kSyncThreadJoinBegin, grainscope::SyncKind::kThreadJoinBegin},
    {kSyncThreadJoinEnd, grainscope::SyncKind::kThreadJoinEnd},
    {kSyncTaskCreate, grainscope::SyncKind::kTaskCreate},
    {kSyncTaskBegin, grainscope::SyncKind::kTaskBegin},
    {kSyncTaskEnd, grainscope::SyncKind::kTaskEnd},
}};
static_assert(kSyncNumbers.size() == grainscope::kSyncKindCount);

// The model's kind of a sync record's number, or false for a number of a later version.
inline bool ModelSyncKind(uint16_t number, grainscope::SyncKind* kind) {
  for (const auto& [n, k] : kSyncNumbers) {
    if (n == number) {
      *kind = k;
      return true;
    }
  }
  return false;
}

inline uint16_t SyncNumber(grainscope::SyncKind kind) { return kSyncNumbers[static_cast<size_t>(kind)].first; }

// The model's operation of an MPI collective's number (MpiCollOpNumber: MPI_Init's and a later
// version's numbers are kOther), and the number of an operation (kOther: kMpiOpOther).
inline constexpr std::array<std::pair<uint16_t, grainscope::CollectiveOp>, 10> kMpiCollOps = {{
    {kMpiOpBarrier, grainscope::CollectiveOp::kBarrier},
    {kMpiOpBcast, grainscope::CollectiveOp::kBroadcast},
    {kMpiOpReduce, grainscope::CollectiveOp::kReduce},
    {kMpiOpAllreduce, grainscope::CollectiveOp::kAllreduce},
    {kMpiOpGather, grainscope::CollectiveOp::kGather},
    {kMpiOpScatter, grainscope::CollectiveOp::kScatter},
    {kMpiOpAllgather, grainscope::CollectiveOp::kAllgather},
    {kMpiOpAlltoall, grainscope::CollectiveOp::kAlltoall},
    {kMpiOpScan, grainscope::CollectiveOp::kScan},
    {kMpiOpReduceScatter, grainscope::CollectiveOp::kReduceScatter},
}};

inline grainscope::CollectiveOp ModelCollectiveOp(uint16_t number) {
  for (const auto& [n, op] : kMpiCollOps)
    if (n == number) return op;
  return grainscope::CollectiveOp::kOther;
}

inline uint16_t MpiCollOpNumber(grainscope::CollectiveOp op) {
  for (const auto& [n, o] : kMpiCollOps)
    if (o == op) return n;
  return kMpiOpOther;
}

}  // namespace grainscope::gst
