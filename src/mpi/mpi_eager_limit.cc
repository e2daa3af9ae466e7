// The MPI library's eager limit, read through the MPI tool interface (MPI_T).
#include <mpi.h>

#include <climits>
#include <cstring>
#include <string>

#include "mpi/mpi_state.h"

namespace grainscope::mpi {

// The library's eager limit from its MPI_T control variables, as "mpi.eager_limit BYTES NAME"
// (the reader derives the rendezvous sends from it: model/rendezvous.h), or "" when the library
// exposes none of them. Open MPI 4 (shared memory: vader) and 5 (sm) first — ranks of one node —
// then TCP; MPICH's CH3 and CH4 limits.
std::string EagerLimitLabel() {
  static const char* const kNames[] = {"btl_vader_eager_limit", "btl_sm_eager_limit", "btl_tcp_eager_limit",
                                       "MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE", "MPIR_CVAR_CH4_OFI_EAGER_MAX_MSG_SIZE"};
  int provided = 0;
  if (MPI_T_init_thread(MPI_THREAD_SINGLE, &provided) != MPI_SUCCESS) return "";
  int count = 0;
  std::string label;
  if (MPI_T_cvar_get_num(&count) != MPI_SUCCESS) count = 0;
  int best = -1, best_rank = INT_MAX;
  MPI_Datatype best_type = MPI_DATATYPE_NULL;
  for (int i = 0; i < count; ++i) {
    char name[256], desc[512];
    int name_len = sizeof name, desc_len = sizeof desc, verbosity = 0, bind = 0, scope = 0;
    MPI_Datatype type;
    MPI_T_enum enumtype;
    if (MPI_T_cvar_get_info(i, name, &name_len, &verbosity, &type, &enumtype, desc, &desc_len, &bind, &scope) != MPI_SUCCESS)
      continue;
    for (int k = 0; k < static_cast<int>(sizeof kNames / sizeof kNames[0]); ++k) {
      if (std::strcmp(name, kNames[k]) == 0 && k < best_rank && bind == MPI_T_BIND_NO_OBJECT) {
        best = i, best_rank = k, best_type = type;
      }
    }
  }
  MPI_T_cvar_handle handle;
  int elements = 0;
  if (best >= 0 && MPI_T_cvar_handle_alloc(best, nullptr, &handle, &elements) == MPI_SUCCESS) {
    unsigned char value[16] = {};
    int size = 0;
    if (elements == 1 && PMPI_Type_size(best_type, &size) == MPI_SUCCESS && size > 0 && size <= 8 &&
        MPI_T_cvar_read(handle, value) == MPI_SUCCESS) {
      unsigned long long bytes = 0;
      if (size == 8) std::memcpy(&bytes, value, 8);
      if (size == 4) {
        unsigned int v = 0;
        std::memcpy(&v, value, 4);
        bytes = v;
      }
      label = "mpi.eager_limit " + std::to_string(bytes) + " " + kNames[best_rank];
    }
    MPI_T_cvar_handle_free(&handle);
  }
  MPI_T_finalize();
  return label;
}

}  // namespace grainscope::mpi
