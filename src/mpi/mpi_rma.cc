// PMPI wrappers (C bindings) for one-sided communication: each call is a region named after it,
// so that the time spent in it is communication, not "(outside regions)". The data a Put, Get
// or Accumulate moves is not a message (it has no receive): it is not recorded as one.
#include "mpi/mpi_state.h"

namespace gm = grainscope::mpi;

namespace {

GS_MPI_REGION(r_put, "MPI_Put");
GS_MPI_REGION(r_get, "MPI_Get");
GS_MPI_REGION(r_accumulate, "MPI_Accumulate");
GS_MPI_REGION(r_get_accumulate, "MPI_Get_accumulate");
GS_MPI_REGION(r_win_fence, "MPI_Win_fence");
GS_MPI_REGION(r_win_lock, "MPI_Win_lock");
GS_MPI_REGION(r_win_unlock, "MPI_Win_unlock");
GS_MPI_REGION(r_win_lock_all, "MPI_Win_lock_all");
GS_MPI_REGION(r_win_unlock_all, "MPI_Win_unlock_all");
GS_MPI_REGION(r_win_flush, "MPI_Win_flush");
GS_MPI_REGION(r_win_post, "MPI_Win_post");
GS_MPI_REGION(r_win_start, "MPI_Win_start");
GS_MPI_REGION(r_win_complete, "MPI_Win_complete");
GS_MPI_REGION(r_win_wait, "MPI_Win_wait");
GS_MPI_REGION(r_win_create, "MPI_Win_create");
GS_MPI_REGION(r_win_allocate, "MPI_Win_allocate");
GS_MPI_REGION(r_win_free, "MPI_Win_free");

}  // namespace

extern "C" {

int MPI_Put(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_type, MPI_Win win) {
  return gm::InRegion(&r_put, PMPI_Put, origin, origin_count, origin_type, target, target_disp, target_count,
                      target_type, win);
}

int MPI_Get(void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
            int target_count, MPI_Datatype target_type, MPI_Win win) {
  return gm::InRegion(&r_get, PMPI_Get, origin, origin_count, origin_type, target, target_disp, target_count,
                      target_type, win);
}

int MPI_Accumulate(const void* origin, int origin_count, MPI_Datatype origin_type, int target, MPI_Aint target_disp,
                   int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  return gm::InRegion(&r_accumulate, PMPI_Accumulate, origin, origin_count, origin_type, target, target_disp,
                      target_count, target_type, op, win);
}

int MPI_Get_accumulate(const void* origin, int origin_count, MPI_Datatype origin_type, void* result,
                       int result_count, MPI_Datatype result_type, int target, MPI_Aint target_disp,
                       int target_count, MPI_Datatype target_type, MPI_Op op, MPI_Win win) {
  return gm::InRegion(&r_get_accumulate, PMPI_Get_accumulate, origin, origin_count, origin_type, result, result_count,
                      result_type, target, target_disp, target_count, target_type, op, win);
}

int MPI_Win_fence(int assert_flags, MPI_Win win) {
  return gm::InRegion(&r_win_fence, PMPI_Win_fence, assert_flags, win);
}

int MPI_Win_lock(int lock_type, int rank, int assert_flags, MPI_Win win) {
  return gm::InRegion(&r_win_lock, PMPI_Win_lock, lock_type, rank, assert_flags, win);
}

int MPI_Win_unlock(int rank, MPI_Win win) {
  return gm::InRegion(&r_win_unlock, PMPI_Win_unlock, rank, win);
}

int MPI_Win_lock_all(int assert_flags, MPI_Win win) {
  return gm::InRegion(&r_win_lock_all, PMPI_Win_lock_all, assert_flags, win);
}

int MPI_Win_unlock_all(MPI_Win win) {
  return gm::InRegion(&r_win_unlock_all, PMPI_Win_unlock_all, win);
}

int MPI_Win_flush(int rank, MPI_Win win) {
  return gm::InRegion(&r_win_flush, PMPI_Win_flush, rank, win);
}

int MPI_Win_post(MPI_Group group, int assert_flags, MPI_Win win) {
  return gm::InRegion(&r_win_post, PMPI_Win_post, group, assert_flags, win);
}

int MPI_Win_start(MPI_Group group, int assert_flags, MPI_Win win) {
  return gm::InRegion(&r_win_start, PMPI_Win_start, group, assert_flags, win);
}

int MPI_Win_complete(MPI_Win win) {
  return gm::InRegion(&r_win_complete, PMPI_Win_complete, win);
}

int MPI_Win_wait(MPI_Win win) {
  return gm::InRegion(&r_win_wait, PMPI_Win_wait, win);
}

// Window creation and release are collective over the communicator: regions too.
int MPI_Win_create(void* base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, MPI_Win* win) {
  return gm::InRegion(&r_win_create, PMPI_Win_create, base, size, disp_unit, info, comm, win);
}

int MPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void* baseptr, MPI_Win* win) {
  return gm::InRegion(&r_win_allocate, PMPI_Win_allocate, size, disp_unit, info, comm, baseptr, win);
}

int MPI_Win_free(MPI_Win* win) {
  return gm::InRegion(&r_win_free, PMPI_Win_free, win);
}

}  // extern "C"
