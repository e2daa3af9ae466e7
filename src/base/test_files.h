// Files for tests (test-only): a temporary directory removed at the end of the test, a file
// written into it, and a FIFO fed from another thread while the code under test reads it.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <thread>

#include "base/status.h"

namespace grainscope {

class TempDir {
 public:
  explicit TempDir(std::string_view tag)
      : path_(std::filesystem::temp_directory_path() /
              (std::string("gs_") + std::string(tag) + "_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// Writes `content` to `path`; false when it cannot.
inline bool WriteTestFile(const std::string& path, std::string_view content) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return false;
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  return std::fclose(f) == 0 && written;
}

// Makes `path` a FIFO and writes `content` into it from another thread while `read(path)` runs:
// what `read` returns, or an error when the FIFO cannot be made.
template <class Read>
auto ReadThroughFifo(const std::string& path, const std::string& content, Read read) -> decltype(read(path)) {
  if (::mkfifo(path.c_str(), 0600) != 0) return IoError("mkfifo failed");
  std::thread writer([&] { WriteTestFile(path, content); });
  auto result = read(path);
  writer.join();
  return result;
}

}  // namespace grainscope
