#include "base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace grainscope {

MappedFile::~MappedFile() {
  if (data_ != nullptr) munmap(data_, size_);
}

Status MappedFile::Open(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(fmt::format("{}: cannot open: {}", path, std::strerror(errno)));
  struct stat st {};
  if (fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    close(fd);
    return IoError(fmt::format("{}: is not a regular file", path));
  }
  size_ = static_cast<size_t>(st.st_size);
  if (size_ > 0) {
    void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int saved = errno;
      close(fd);
      size_ = 0;
      return IoError(fmt::format("{}: cannot map: {}", path, std::strerror(saved)));
    }
    data_ = p;
    madvise(data_, size_, MADV_SEQUENTIAL);
  }
  close(fd);
  return OkStatus();
}

void MappedFile::ReleaseBefore(size_t offset) {
  static const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t bytes = std::min(offset, size_) / page * page;
  if (data_ != nullptr && bytes > 0) madvise(data_, bytes, MADV_DONTNEED);
}

}  // namespace grainscope
