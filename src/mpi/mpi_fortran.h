// What the Fortran bindings of libgrainscope-mpi share (mpi_fortran.cc: the common subset,
// mpi_fortran_families.cc: the other call families): Open MPI's sentinels, handle conversion, the
// optional ierror, and GS_FORTRAN, which defines a binding under its mpif.h / use mpi / mpi_f08
// names. Each binding converts its handles and calls this library's C wrapper (MPI_Send ...),
// which records and then calls PMPI: Open MPI's own Fortran routines call PMPI_* directly, so a
// Fortran program is only traced through these.
#pragma once

#include <type_traits>

#include "mpi/mpi_state.h"

// Open MPI's Fortran sentinels (common blocks in libmpi): compared by address.
extern "C" {
extern int mpi_fortran_in_place_ __attribute__((weak));
extern int mpi_fortran_status_ignore_ __attribute__((weak));
extern int mpi_fortran_statuses_ignore_ __attribute__((weak));
}

namespace grainscope::mpi::fortran {

inline const void* InPlace(const void* buf) { return buf == &mpi_fortran_in_place_ ? MPI_IN_PLACE : buf; }
inline bool StatusIgnored(const MPI_Fint* status) {
  return status == reinterpret_cast<const MPI_Fint*>(&mpi_fortran_status_ignore_);
}
inline bool StatusesIgnored(const MPI_Fint* statuses) {
  return statuses == reinterpret_cast<const MPI_Fint*>(&mpi_fortran_statuses_ignore_);
}
inline MPI_Comm Comm(const MPI_Fint* c) { return PMPI_Comm_f2c(*c); }
inline MPI_Datatype Type(const MPI_Fint* t) { return PMPI_Type_f2c(*t); }
inline MPI_Op Op(const MPI_Fint* o) { return PMPI_Op_f2c(*o); }
inline MPI_Info Info(const MPI_Fint* i) { return PMPI_Info_f2c(*i); }
inline MPI_Win Win(const MPI_Fint* w) { return PMPI_Win_f2c(*w); }
inline MPI_Fint Logical(int flag) { return flag ? 1 : 0; }  // gfortran's .true. is 1

inline void StatusOut(const MPI_Status& c, MPI_Fint* f) {
  if (!StatusIgnored(f)) PMPI_Status_c2f(&c, f);
}
// A request made by a C call, handed back to Fortran.
inline void RequestOut(int rc, MPI_Request r, MPI_Fint* f) {
  if (rc == MPI_SUCCESS) *f = PMPI_Request_c2f(r);
}

// The `ierror` argument. In the mpi_f08 bindings it is optional, and a call that leaves it out
// passes a null pointer: then the code is written to a thread's scratch word. Passed exactly like
// the pointer it holds (one trivially copyable pointer member), so one function serves both
// bindings.
class FortranError {
 public:
  MPI_Fint& operator*() const { return p_ != nullptr ? *p_ : scratch_; }

 private:
  MPI_Fint* p_;
  static inline thread_local MPI_Fint scratch_ = 0;
};
static_assert(sizeof(FortranError) == sizeof(MPI_Fint*) && std::is_trivially_copyable_v<FortranError>);

}  // namespace grainscope::mpi::fortran

// Defines mpi_<name>_, its double-underscore alias and the mpi_f08 name (mpi_<name>_f08_: Open
// MPI's `use mpi_f08` procedures). The f08 handles (TYPE(MPI_Comm), TYPE(MPI_Status), ...) hold
// the same integers as the mpif.h ones, passed by reference alike; choice buffers are passed as
// addresses (Open MPI's NO_ARG_CHECK); only the optional ierror differs (FortranError).
#define GS_FORTRAN(name, params) \
  extern "C" void name##__ params __attribute__((alias(#name "_"))); \
  extern "C" void name##_f08_ params __attribute__((alias(#name "_"))); \
  extern "C" void name##_ params
