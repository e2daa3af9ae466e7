// The OTF2 reader through a real archive on disk (libotf2 only reads files). At start-up a small
// valid archive is written from examples/traces/fig4_5.txt with our OTF2 writer; each input
// replaces one of its files (the first byte picks which: the anchor, the global definitions, a
// location's local definitions or events), the archive is read, and the file is put back.
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "format/otf2/otf2_reader.h"
#include "format/otf2/otf2_writer.h"
#include "format/seedtext/seedtext_reader.h"

namespace {

struct Archive {
  std::string dir;
  std::string anchor;
  std::vector<std::string> files;      // every file of the archive, sorted
  std::vector<std::string> originals;  // their contents
};

Archive* g_archive = nullptr;

std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void Put(const std::string& path, const char* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

void ListFiles(const std::string& dir, std::vector<std::string>& out) {
  DIR* d = opendir(dir.c_str());
  if (d == nullptr) return;
  while (dirent* e = readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    const std::string path = dir + "/" + name;
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) ListFiles(path, out);
    else out.push_back(path);
  }
  closedir(d);
}

void RemoveTree(const std::string& dir) {
  std::vector<std::string> files;
  ListFiles(dir, files);
  for (const auto& f : files) unlink(f.c_str());
  std::string cmd = "rm -rf '" + dir + "'";
  (void)std::system(cmd.c_str());
}

void Cleanup() {
  if (g_archive != nullptr) RemoveTree(g_archive->dir);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string seed = Slurp(GS_FUZZ_EXAMPLES_DIR "/traces/fig4_5.txt");
  auto trace = grainscope::ReadSeedText(seed, "fig4_5.txt");
  if (!trace.ok()) std::abort();
  char tmpl[] = "/tmp/gs_fuzz_otf2.XXXXXX";
  if (mkdtemp(tmpl) == nullptr) std::abort();
  g_archive = new Archive;
  g_archive->dir = tmpl;
  g_archive->anchor = g_archive->dir + "/trace.otf2";
  if (!grainscope::WriteOtf2(*trace, g_archive->anchor).ok()) std::abort();
  ListFiles(g_archive->dir, g_archive->files);
  std::sort(g_archive->files.begin(), g_archive->files.end());
  for (const auto& f : g_archive->files) g_archive->originals.push_back(Slurp(f));
  std::atexit(Cleanup);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  Archive& a = *g_archive;
  const size_t which = data[0] % a.files.size();
  Put(a.files[which], reinterpret_cast<const char*>(data + 1), size - 1);
  (void)grainscope::ReadOtf2(a.anchor);
  const std::string& original = a.originals[which];
  Put(a.files[which], original.data(), original.size());
  return 0;
}
