#include "cli/progress.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "base/progress.h"

namespace grainscope::cli {
namespace {

std::string Amount(uint64_t n, bool bytes) {
  if (!bytes) return fmt::format("{}", n);
  if (n >= (1ull << 30)) return fmt::format("{:.1f} GB", static_cast<double>(n) / (1ull << 30));
  return fmt::format("{:.1f} MB", static_cast<double>(n) / (1ull << 20));
}

void WriteAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    const ssize_t n = ::write(fd, s.data() + off, s.size() - off);
    if (n <= 0) return;  // a closed or broken terminal: the bar is not worth an error
    off += static_cast<size_t>(n);
  }
}

}  // namespace

std::string FormatProgress(std::string_view phase, uint64_t done, uint64_t total, bool bytes, double elapsed_s,
                           size_t width) {
  std::string line;
  if (total > 0) {
    const double f = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
    constexpr int kBar = 24;
    const int filled = static_cast<int>(f * kBar);
    line = fmt::format("grainscope: {} [{}{}] {:3.0f}%  {} / {}  {:.1f} s", phase, std::string(filled, '#'),
                       std::string(kBar - filled, '.'), 100 * f, Amount(done, bytes), Amount(total, bytes),
                       elapsed_s);
  } else {
    line = fmt::format("grainscope: {} ...  {:.1f} s", phase, elapsed_s);
  }
  if (line.size() > width) line.resize(width);
  return line;
}

std::string ProgressLine::Update(double now_s, std::string_view phase, uint64_t done, uint64_t total, bool bytes) {
  if (now_s < kDelay || (last_ >= 0 && now_s - last_ < kInterval) || phase.empty()) return {};
  last_ = now_s;
  std::string line = FormatProgress(phase, done, total, bytes, now_s, width_);
  if (line.size() < shown_) line.append(shown_ - line.size(), ' ');  // wipe the rest of a longer line
  shown_ = line.size();
  return "\r" + line;
}

std::string ProgressLine::Finish() {
  if (shown_ == 0) return {};
  std::string clear = "\r" + std::string(shown_, ' ') + "\r";
  shown_ = 0;
  return clear;
}

ProgressDisplay::ProgressDisplay(int fd) : fd_(fd) {
  if (::isatty(fd) == 1) thread_ = std::thread([this] { Loop(); });
}

ProgressDisplay::~ProgressDisplay() { Stop(); }

void ProgressDisplay::Stop() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void ProgressDisplay::Loop() {
  struct winsize ws {};
  const size_t width = ::ioctl(fd_, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 10 ? ws.ws_col - 1 : 79;
  ProgressLine line(width);
  const auto start = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu_);
  while (!cv_.wait_for(lock, std::chrono::milliseconds(100), [this] { return stop_; })) {
    const progress::Snapshot s = progress::Read();
    if (s.phase == nullptr) continue;
    const double now = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const std::string_view phase = s.phase;
    WriteAll(fd_, line.Update(now, phase, s.done, s.total, phase == "reading"));
  }
  WriteAll(fd_, line.Finish());
}

}  // namespace grainscope::cli
