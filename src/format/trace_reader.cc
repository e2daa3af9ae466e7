#include "format/trace_reader.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/file.h"
#include "format/seedtext/seedtext_reader.h"

namespace grainscope {

std::vector<std::string_view> ReadableFormats() { return {"auto", kSeedTextFormat}; }

Result<Trace> ReadTrace(const std::string& path, std::string_view format) {
  if (format != "auto" && format != kSeedTextFormat) {
    return InvalidArgument(fmt::format("unknown input format '{}' (known: {})", format,
                                       fmt::join(ReadableFormats(), ", ")));
  }
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected a trace", path));
  if (format == "auto") {
    constexpr size_t kSniffBytes = 1 << 16;
    if (!LooksLikeSeedText(std::string_view(content).substr(0, kSniffBytes))) {
      return DataLoss(fmt::format(
          "{}: unrecognised trace format: no seed text record (a line starting with start, stop, "
          "sendBegin, sendEnd, recvBegin or recvEnd) in its first {} KiB",
          path, kSniffBytes / 1024));
    }
  }
  return ReadSeedText(content, path);
}

}  // namespace grainscope
