#include "base/file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <optional>

#include <fmt/format.h>

#include "base/numbers.h"

namespace grainscope {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

}  // namespace

uint64_t MaxStreamBytes() {
  const char* env = std::getenv("GRAINSCOPE_MAX_STREAM_BYTES");
  if (env == nullptr) return kDefaultMaxStreamBytes;
  const std::optional<int64_t> bytes = ParseNonNegativeInt(env);
  return bytes && *bytes > 0 ? static_cast<uint64_t>(*bytes) : kDefaultMaxStreamBytes;
}

Result<std::string> ReadFile(const std::string& path, const HeadCheck& check_head) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return IoError(fmt::format("{}: cannot open: {}", path, ErrnoText()));
  struct stat st {};
  if (::fstat(fd, &st) != 0) st.st_mode = 0;
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return IoError(fmt::format("{}: is a directory, expected a file", path));
  }
  // A regular file is read to its size at open (a file still being written is cut there); anything
  // else, and files that claim no size (/proc), up to the stream limit.
  const bool regular = S_ISREG(st.st_mode) && st.st_size > 0;
  const uint64_t limit = regular ? static_cast<uint64_t>(st.st_size) : MaxStreamBytes();
  std::string content;
  if (regular) content.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  bool head_checked = check_head == nullptr;
  auto check = [&]() -> Status {
    head_checked = true;
    Status s = check_head(std::string_view(content).substr(0, kHeadBytes));
    if (!s.ok()) ::close(fd);
    return s;
  };
  while (content.size() < limit || !regular) {
    const size_t want = regular ? std::min<uint64_t>(sizeof buffer, limit - content.size()) : sizeof buffer;
    ssize_t n = ::read(fd, buffer, want);
    if (n < 0) {
      if (errno == EINTR) continue;
      std::string why = ErrnoText();
      ::close(fd);
      return IoError(fmt::format("{}: read failed: {}", path, why));
    }
    if (n == 0) break;
    if (!regular && content.size() + static_cast<size_t>(n) > limit) {
      ::close(fd);
      return DataLoss(fmt::format(
          "{}: more than {} bytes from a pipe or device, the limit for inputs that are not regular files "
          "(GRAINSCOPE_MAX_STREAM_BYTES raises it); save the trace to a file",
          path, limit));
    }
    content.append(buffer, static_cast<size_t>(n));
    if (!head_checked && content.size() >= kHeadBytes) GS_RETURN_IF_ERROR(check());
  }
  if (!head_checked) GS_RETURN_IF_ERROR(check());
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
