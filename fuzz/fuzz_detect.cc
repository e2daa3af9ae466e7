// The dispatch layer: auto-detection over every importer, trace readers and task-graph readers
// alike (ReadTrace and ReadGraphInput with "auto"). The first byte picks the name the rest of
// the input is written under — a plain file with an extension that makes some reader sure of
// itself, or the one file of a directory, as rank directories are found — so every sniffer and
// the reader it chooses see hostile bytes behind a name they believe.
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "format/trace_reader.h"
#include "fuzz/fuzz_util.h"
#include "schedule/io/graph_input.h"

namespace {

namespace fs = std::filesystem;

// (directory inside the temporary one, or empty; file name)
constexpr struct {
  const char* dir;
  const char* file;
} kNames[] = {
    {"", "trace"},        {"", "trace.gst"},    {"", "trace.json"},  {"", "trace.txt"},
    {"", "traces.otf2"},  {"", "graph.stg"},    {"", "graph.dot"},   {"", "Task_Graph"},
    {"ranks", "rank-0.json"}, {"ranks", "rank-00000.gst"},
};

std::string g_root;

void Cleanup() {
  std::error_code ec;
  fs::remove_all(g_root, ec);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  char tmpl[] = "/tmp/gs_fuzz_detect.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) std::abort();
  g_root = tmpl;
  std::atexit(Cleanup);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto& name = kNames[data[0] % (sizeof(kNames) / sizeof(kNames[0]))];
  std::error_code ec;
  fs::remove_all(g_root, ec);
  fs::create_directories(g_root + "/" + name.dir, ec);
  const std::string file = g_root + "/" + name.dir + (*name.dir ? "/" : "") + name.file;
  grainscope::fuzz::WriteFileOrAbort(file, data + 1, size - 1);
  const std::string path = *name.dir ? g_root + "/" + name.dir : file;
  (void)grainscope::ReadTrace(path, "auto");
  (void)grainscope::ReadGraphInput(path, "auto");
  return 0;
}
