// The MPI rank-directory reader: the input is rank 1's file, next to the valid rank 0 of
// examples/traces/mpi_barrier_imbalance, so the cross-file matching and clock alignment run on
// damaged data too.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "format/gst/gst_dir_reader.h"
#include "fuzz/fuzz_util.h"

namespace {

std::string g_dir;

void Cleanup() {
  unlink((g_dir + "/rank-00000.gst").c_str());
  unlink((g_dir + "/rank-00001.gst").c_str());
  rmdir(g_dir.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char tmpl[] = "/tmp/gs_fuzz_gst_dir.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) std::abort();
  g_dir = tmpl;
  std::ifstream in(GS_FUZZ_EXAMPLES_DIR "/traces/mpi_barrier_imbalance/rank-00000.gst", std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  const std::string rank0 = s.str();
  if (rank0.empty()) std::abort();
  grainscope::fuzz::WriteFileOrAbort(g_dir + "/rank-00000.gst", rank0.data(), rank0.size());
  std::atexit(Cleanup);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  grainscope::fuzz::WriteFileOrAbort(g_dir + "/rank-00001.gst", data, size);
  (void)grainscope::ReadGstDirectory(g_dir);
  return 0;
}
