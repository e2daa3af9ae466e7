// The Charm++ Projections reader: the input is PE 1's log (plain text, or gzip when it starts with
// gzip's magic: zlib reads both), next to a valid .sts and PE 0 log of a two-PE run, so the pairing
// of creations and processings across logs runs on damaged records too. An input starting with
// "PROJECTIONS_ID" is the .sts file instead, next to both valid logs.
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "format/projections/projections_reader.h"
#include "fuzz/fuzz_util.h"

namespace {

constexpr char kSts[] =
    "PROJECTIONS_ID \nVERSION 11.0\nPROCESSORS 2\nCHARE 0 \"Main\" -1\nCHARE 1 \"Worker\" 1\n"
    "ENTRY CHARE 0 \"Main(CkArgMsg* m)\" 0 0\nENTRY CHARE 1 \"work(int n)\" 1 1\nEVENT 5 Solve step\nEND\n";
constexpr char kPe0[] =
    "PROJECTIONS-RECORD 6\n6 100\n2 0 0 110 -1 0 64 0 0 105\n20 1 1 120 7 0 32 0 2\n3 0 0 130 -1 0 64 131\n"
    "2 1 1 140 7 0 32 0 3 135\n3 1 1 160 7 0 32 162\n7 300\n";
constexpr char kPe1[] = "PROJECTIONS-RECORD 4\n6 100\n2 1 1 150 7 0 32 0 4 145\n3 1 1 170 7 0 32 171\n7 300\n";

std::string g_dir;

void Cleanup() {
  for (const char* f : {"/run.sts", "/run.0.log", "/run.1.log"}) unlink((g_dir + f).c_str());
  rmdir(g_dir.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char tmpl[] = "/tmp/gs_fuzz_projections.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) std::abort();
  g_dir = tmpl;
  grainscope::fuzz::WriteFileOrAbort(g_dir + "/run.0.log", kPe0, sizeof(kPe0) - 1);
  std::atexit(Cleanup);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const bool sts = grainscope::fuzz::AsText(data, size).starts_with("PROJECTIONS_ID");
  grainscope::fuzz::WriteFileOrAbort(g_dir + "/run.sts", sts ? data : reinterpret_cast<const uint8_t*>(kSts),
                                     sts ? size : sizeof(kSts) - 1);
  grainscope::fuzz::WriteFileOrAbort(g_dir + "/run.1.log", sts ? reinterpret_cast<const uint8_t*>(kPe1) : data,
                                     sts ? sizeof(kPe1) - 1 : size);
  (void)grainscope::kProjectionsImporter.read_path(g_dir, {});
  return 0;
}
