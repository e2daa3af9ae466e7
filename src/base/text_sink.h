// Text written while it is produced (issue 35): a report, a CSV table or a Chrome trace is appended
// to a buffer that goes out to its file each time it passes kDrainBytes, so the memory a writer
// holds does not grow with what it writes (a critical path of 7 M stretches is 145 MB of JSON).
// The same writer can fill a string instead: tests, the Python module's capture, a page that embeds
// a report.
#pragma once

#include <cstddef>
#include <functional>
#include <iterator>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "base/status.h"

namespace grainscope {

class TextSink {
 public:
  static constexpr size_t kDrainBytes = size_t{1} << 20;

  // Collects everything in `whole` (appended to what it holds).
  explicit TextSink(std::string& whole) : text_(&whole) {}
  // Writes to the open file descriptor `fd`, which stays the caller's; `name` says in errors what it
  // is ("standard output", a path).
  TextSink(int fd, std::string name) : text_(&own_), fd_(fd), name_(std::move(name)) {}
  TextSink(const TextSink&) = delete;
  TextSink& operator=(const TextSink&) = delete;

  // The text not yet written out: writers append to it (by reference, so a writer's helpers that
  // take a std::string& write here unchanged).
  std::string& text() { return *text_; }
  // Called between the pieces of a long output: writes the text out once it holds kDrainBytes.
  void Step() {
    if (fd_ >= 0 && text_->size() >= kDrainBytes) Drain();
  }
  // Appends `whole` a kDrainBytes piece at a time, stepping after each: an output already made
  // goes out without a second copy of it.
  void Append(std::string_view whole) {
    for (size_t at = 0; at < whole.size(); at += kDrainBytes) {
      text_->append(whole.substr(at, kDrainBytes));
      Step();
    }
  }
  // Appends fmt::format(f, args...), then Step: one row of a long table.
  template <typename... Args>
  void Row(fmt::format_string<Args...> f, Args&&... args) {
    fmt::format_to(std::back_inserter(*text_), f, std::forward<Args>(args)...);
    Step();
  }
  // Writes the rest out. The first write error, if any: after one, nothing more is written.
  Status Close();
  // A write has failed: what a writer formats from here on is thrown away, so a long one may stop
  // (AppendInOrder does); Close says why.
  bool failed() const { return !error_.ok(); }

 private:
  void Drain();

  std::string own_;
  std::string* text_;
  int fd_ = -1;
  std::string name_;
  Status error_;
};

// Appends piece(i, text) for i = 0 .. n-1 to `out`, in index order: the rows of a long table, the
// elements of a long JSON array. With `threads` above 1 the pieces are formatted a chunk per task
// on that many threads (base/parallel.h), a wave of a few chunks at a time, so a long output's
// formatting uses every core while memory holds at most one wave; the bytes are the same on any
// number of threads. `piece` must only read what it shares. Once `out` has failed, the rest is
// not formatted.
void AppendInOrder(TextSink& out, size_t n, unsigned threads,
                   const std::function<void(size_t i, std::string& text)>& piece);

// The text `write` (a Status(TextSink&) callable) produces, whole: for tests, and for a page that
// embeds a report.
template <class Write>
Result<std::string> CollectText(Write&& write) {
  std::string whole;
  TextSink sink(whole);
  GS_RETURN_IF_ERROR(write(sink));
  return whole;
}

}  // namespace grainscope
