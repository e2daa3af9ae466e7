// The Nsight Systems SQLite reader: the input is the database file (SQLite checks its own pages;
// this target checks what the reader does with whatever SQLite returns: missing columns, NULLs,
// ends before starts, unknown ids).
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "format/nsight/nsight_reader.h"
#include "fuzz/fuzz_util.h"

namespace {

std::string g_dir;

void Cleanup() {
  unlink((g_dir + "/run.sqlite").c_str());
  rmdir(g_dir.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char tmpl[] = "/tmp/gs_fuzz_nsight.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) std::abort();
  g_dir = tmpl;
  std::atexit(Cleanup);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  grainscope::fuzz::WriteFileOrAbort(g_dir + "/run.sqlite", data, size);
  (void)grainscope::kNsightImporter.read_path(g_dir + "/run.sqlite", {});
  return 0;
}
