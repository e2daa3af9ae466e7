// The progress bar on stderr: shown only when stderr is a terminal, only once a command has run
// for more than a second, redrawn at most 10 times a second, and its line cleared at the end.
// What it shows comes from base/progress.h (the reader's byte offset, the analysis running).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace grainscope::cli {

// "grainscope: reading [########............]  40%  12.0 MB / 30.0 MB  2.1 s"; without a total,
// "grainscope: critical path ...  2.1 s". At most `width` characters.
std::string FormatProgress(std::string_view phase, uint64_t done, uint64_t total, bool bytes, double elapsed_s,
                           size_t width);

// The throttling, with time passed in (seconds since the command started) so tests need no clock.
class ProgressLine {
 public:
  static constexpr double kDelay = 1.0;     // show nothing during the first second
  static constexpr double kInterval = 0.1;  // then redraw at most this often
  explicit ProgressLine(size_t width = 79) : width_(width) {}
  // What to write to the terminal now: "" (nothing), or "\r" + the line padded over the last one.
  std::string Update(double now_s, std::string_view phase, uint64_t done, uint64_t total, bool bytes);
  // Clears the line if anything was shown.
  std::string Finish();

 private:
  size_t width_;
  double last_ = -1;
  size_t shown_ = 0;  // length of the line on screen
};

// While alive, a thread redraws the bar on `fd` from base/progress.h; does nothing unless `fd`
// is a terminal. Destroy it before printing anything else to that stream.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(int fd);
  ~ProgressDisplay();
  ProgressDisplay(const ProgressDisplay&) = delete;
  // Clears the bar and stops redrawing it (for good): call before printing to the stream.
  void Stop();
  ProgressDisplay& operator=(const ProgressDisplay&) = delete;
  bool active() const { return thread_.joinable(); }

 private:
  void Loop();
  int fd_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace grainscope::cli
