// The interned communicator keys the MPI records name (gst_format.h, kRecordMpiSend and the like),
// cached per thread: interning takes a lock and a hash of the text, a record a few nanoseconds.
#include <mpi.h>

#include <cstdint>
#include <vector>

#include "mpi/mpi_state.h"

namespace grainscope::mpi {

uint32_t CommKey(const CommInfo& comm) {
  // A communicator's index is its table row for the whole run (rows are never reused), and its
  // key never changes.
  thread_local std::vector<uint32_t> t_keys;
  if (comm.index < t_keys.size() && t_keys[comm.index] != 0) return t_keys[comm.index];
  const uint32_t id = gs_intern(comm.id);
  if (id == 0) return 0;
  if (t_keys.size() <= comm.index) t_keys.resize(comm.index + 1, 0);
  t_keys[comm.index] = id;
  return id;
}

}  // namespace grainscope::mpi
