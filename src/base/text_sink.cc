#include "base/text_sink.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace grainscope {

void TextSink::Drain() {
  size_t done = 0;
  while (error_.ok() && done < text_->size()) {
    const ssize_t n = ::write(fd_, text_->data() + done, text_->size() - done);
    if (n >= 0) {
      done += static_cast<size_t>(n);
    } else if (errno != EINTR) {
      error_ = IoError(fmt::format("{}: write failed: {}", name_, std::strerror(errno)));
    }
  }
  text_->clear();
}

Status TextSink::Close() {
  if (fd_ >= 0) Drain();
  return error_;
}

}  // namespace grainscope
