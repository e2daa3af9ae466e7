#include "format/trace_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/file.h"
#include "base/progress.h"
#include "format/chrome/chrome_reader.h"
#include "format/chrome/chrome_writer.h"
#include "format/gst/gst_dir_reader.h"
#include "format/gst/gst_reader.h"
#include "format/otf2/otf2_reader.h"
#include "format/seedtext/seedtext_reader.h"

namespace grainscope {
namespace {

// An OTF2 archive is named by its anchor file (*.otf2) or by a directory holding one.
bool LooksLikeOtf2(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  if (p.extension() == ".otf2") return true;
  std::error_code ec;
  return fs::is_directory(p, ec) && FindOtf2Anchor(path).ok();
}

// The first bytes of `path` (fewer if the file is shorter, none if it cannot be read: the reader
// chosen afterwards reports that properly).
std::string ReadHead(const std::string& path, size_t size) {
  std::string head(size, '\0');
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  ssize_t n = ::read(fd, head.data(), size);
  ::close(fd);
  head.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return head;
}

}  // namespace

std::vector<std::string_view> ReadableFormats() {
  return {"auto", kSeedTextFormat, kOtf2Format, kChromeFormat, kGstFormat};
}

namespace {

Result<Trace> ReadAnyFormat(const std::string& path, std::string_view format) {
  const std::vector<std::string_view> known = ReadableFormats();
  if (std::find(known.begin(), known.end(), format) == known.end()) {
    return InvalidArgument(fmt::format("unknown input format '{}' (known: {})", format,
                                       fmt::join(known, ", ")));
  }
  std::error_code ec;
  const uint64_t size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  progress::Begin("reading", ec ? 0 : size);  // readers advance it by byte offset (or by location)
  if (format == kOtf2Format || (format == "auto" && LooksLikeOtf2(path))) return ReadOtf2(path);
  // An MPI run recorded by libgrainscope-mpi: a directory with one .gst stream per rank.
  if ((format == kGstFormat || format == "auto") && LooksLikeGstDirectory(path)) return ReadGstDirectory(path);
  // .gst is binary and memory-mapped by its reader: recognised by its magic number, or by its
  // extension (a damaged magic number then gets the .gst reader's error, not the text readers').
  // A pipe or device is read once (bounded: base/file.h), never sniffed before: that would eat its
  // first bytes.
  const bool stream = std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec) &&
                      !std::filesystem::is_directory(path, ec);
  const bool gst_name = std::filesystem::path(path).extension() == ".gst";
  if (format == kGstFormat || (format == "auto" && !stream && (gst_name || LooksLikeGst(ReadHead(path, 8)))))
    return ReadGstFile(path);
  // What auto-detection decides from the first 64 KiB, checked before the rest is read, so that an
  // input that is no trace fails at once even when it never ends (/dev/zero).
  constexpr size_t kSniffBytes = kHeadBytes;
  auto sniff = [&](std::string_view head) -> Status {
    if (format != "auto" || head.empty()) return OkStatus();
    if (stream && LooksLikeGst(head.substr(0, 8))) {
      return DataLoss(fmt::format("{}: a .gst trace from a pipe or device: the .gst reader maps a file, save it to one",
                                  path));
    }
    if (LooksLikeChromeJson(head) || LooksLikeSeedText(head)) return OkStatus();
    // Kept word for word: golden tests and scripts match it. JSON and *.otf2 were ruled out above.
    return DataLoss(fmt::format(
        "{}: unrecognised trace format: no seed text record (a line starting with start, stop, "
        "sendBegin, sendEnd, recvBegin or recvEnd) in its first {} KiB",
        path, kSniffBytes / 1024));
  };
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path, sniff));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected a trace", path));
  if (format == kChromeFormat) return ReadChromeJson(content, path);
  if (format == "auto" && LooksLikeChromeJson(std::string_view(content).substr(0, kSniffBytes)))
    return ReadChromeJson(content, path);
  return ReadSeedText(content, path);
}

}  // namespace

Result<Trace> ReadTrace(const std::string& path, std::string_view format) {
  Result<Trace> trace = ReadAnyFormat(path, format);
  progress::Begin("analysing", 0);  // what a command does next; it may name its steps itself
  return trace;
}

}  // namespace grainscope
