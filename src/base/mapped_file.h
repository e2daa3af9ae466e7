// A read-only mapping of a whole regular file, for readers that walk a file once from the front
// (the .gst and Chrome JSON readers): no copy of it in memory, and the pages it has read past can
// be handed back, so that reading a file larger than memory does not need its size in memory.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"

namespace grainscope {

class MappedFile {
 public:
  MappedFile() = default;
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile();

  // Maps `path`; an error names the file and the reason (a directory, no permission).
  Status Open(const std::string& path);

  std::span<const unsigned char> bytes() const { return {static_cast<const unsigned char*>(data_), size_}; }
  std::string_view text() const { return {static_cast<const char*>(data_), size_}; }

  // The pages wholly before `offset` leave this process's memory. Reading them again is still
  // correct (the kernel reads them back from the file), only slower.
  void ReleaseBefore(size_t offset);

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace grainscope
