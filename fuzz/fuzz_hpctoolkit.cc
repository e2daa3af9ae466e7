// The HPCToolkit database reader: the input is the three files framed as one, each a 4-byte
// little-endian length and its bytes (meta.db, profile.db, trace.db; a missing length or a short
// file is what remains), written into a directory the reader then reads. Pointers anywhere in
// the files, sizes, counts and context trees that refer back to themselves reach the reader.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "format/hpctoolkit/hpctoolkit_reader.h"
#include "fuzz/fuzz_util.h"

namespace {

std::string g_dir;
constexpr const char* kFiles[] = {"/meta.db", "/profile.db", "/trace.db"};

void Cleanup() {
  for (const char* f : kFiles) unlink((g_dir + f).c_str());
  rmdir(g_dir.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char tmpl[] = "/tmp/gs_fuzz_hpctoolkit.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) std::abort();
  g_dir = tmpl;
  std::atexit(Cleanup);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  size_t at = 0;
  for (const char* f : kFiles) {
    uint32_t n = 0;
    if (size - at >= 4) std::memcpy(&n, data + at, 4), at += 4;
    n = static_cast<uint32_t>(std::min<size_t>(n, size - at));
    grainscope::fuzz::WriteFileOrAbort(g_dir + f, data + at, n);
    at += n;
  }
  (void)grainscope::kHpctoolkitImporter.read_path(g_dir, {});
  return 0;
}
