#include "base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace grainscope {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

Result<std::string> ReadFile(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(fmt::format("{}: cannot open: {}", path, ErrnoText()));
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    ::close(fd);
    return IoError(fmt::format("{}: is a directory, expected a file", path));
  }
  std::string content;
  if (st.st_size > 0) content.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = ErrnoText();
      ::close(fd);
      return IoError(fmt::format("{}: read failed: {}", path, why));
    }
    if (n == 0) break;
    content.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return content;
}

Status WriteNewFile(const std::string& path, std::string_view content) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(fmt::format("{}: cannot create: {}", path, ErrnoText()));
  size_t done = 0;
  while (done < content.size()) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = ErrnoText();
      ::close(fd);
      ::unlink(path.c_str());
      return IoError(fmt::format("{}: write failed: {}", path, why));
    }
    done += static_cast<size_t>(n);
  }
  if (::close(fd) != 0) {
    std::string why = ErrnoText();
    ::unlink(path.c_str());
    return IoError(fmt::format("{}: write failed: {}", path, why));
  }
  return OkStatus();
}

}  // namespace grainscope
