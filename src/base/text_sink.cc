#include "base/text_sink.h"

#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "base/parallel.h"

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

void AppendInOrder(TextSink& out, size_t n, unsigned threads,
                   const std::function<void(size_t i, std::string& text)>& piece) {
  constexpr size_t kChunk = 8192;  // pieces per task: a few hundred kB of text
  if (threads <= 1 || n <= kChunk) {
    for (size_t i = 0; i < n && !out.failed(); ++i) {
      piece(i, out.text());
      out.Step();
    }
    return;
  }
  const size_t wave = 2 * size_t{threads};
  std::vector<std::string> texts(wave);
  for (size_t first = 0; first < n && !out.failed(); first += wave * kChunk) {
    const size_t chunks = std::min(wave, (n - first + kChunk - 1) / kChunk);
    ParallelFor(chunks, threads, [&](size_t c) {
      std::string& text = texts[c];
      text.clear();
      for (size_t i = first + c * kChunk, end = std::min(n, first + (c + 1) * kChunk); i < end; ++i) piece(i, text);
    });
    for (size_t c = 0; c < chunks; ++c) {
      out.text() += texts[c];
      out.Step();
    }
  }
}

}  // namespace grainscope
