#include "format/trace_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/file.h"
#include "base/progress.h"
#include "format/format_names.h"
#include "format/importer.h"

namespace grainscope {
namespace {

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

// The reader of `kind` (paths or content) most sure of `probe`: the first sure one in registry
// order, else the first plausible one, else nullptr.
const Importer* Detect(const TraceProbe& probe, bool reads_paths) {
  const Importer* plausible = nullptr;
  for (const Importer* importer : Importers()) {
    if ((importer->read_path != nullptr) != reads_paths) continue;
    const Sniff sniff = importer->sniff(probe);
    if (sniff == Sniff::kSure) return importer;
    if (sniff == Sniff::kPlausible && plausible == nullptr) plausible = importer;
  }
  return plausible;
}

Result<Trace> ReadAnyFormat(const std::string& path, std::string_view format) {
  const Importer* named = format == "auto" ? nullptr : FindImporter(format);
  if (format != "auto" && named == nullptr) {
    return InvalidArgument(fmt::format("unknown input format '{}' (known: {})", format,
                                       fmt::join(ReadableFormats(), ", ")));
  }
  std::error_code ec;
  const uint64_t size = std::filesystem::is_regular_file(path, ec) ? std::filesystem::file_size(path, ec) : 0;
  progress::Begin("reading", ec ? 0 : size);  // readers advance it by byte offset (or by location)
  // A pipe or device is read once (bounded: base/file.h), never sniffed before: that would eat its
  // first bytes. So readers of paths (a mapped .gst, an OTF2 archive, a directory of ranks) are
  // chosen from the name and a regular file's first bytes, before the content is read.
  const bool stream = std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec) &&
                      !std::filesystem::is_directory(path, ec);
  if (named != nullptr && named->read_path != nullptr) return named->read_path(path);
  if (named == nullptr) {
    const std::string head = stream ? std::string() : ReadHead(path, kHeadBytes);
    if (const Importer* reader = Detect(TraceProbe{path, head, stream}, true)) return reader->read_path(path);
  }
  // What auto-detection decides from the first 64 KiB, checked before the rest is read, so that an
  // input that is no trace fails at once even when it never ends (/dev/zero).
  auto sniff = [&](std::string_view head) -> Status {
    if (named != nullptr || head.empty()) return OkStatus();
    const TraceProbe probe{path, head, stream};
    if (const Importer* needs_file = stream ? Detect(probe, true) : nullptr) {
      return DataLoss(fmt::format("{}: a {} trace from a pipe or device: the {} reader maps a file, save it to one",
                                  path, needs_file->file_kind, needs_file->file_kind));
    }
    if (Detect(probe, false) != nullptr) return OkStatus();
    // Kept word for word: golden tests and scripts match it. JSON and *.otf2 were ruled out above.
    return DataLoss(fmt::format(
        "{}: unrecognised trace format: no seed text record (a line starting with start, stop, "
        "sendBegin, sendEnd, recvBegin or recvEnd) in its first {} KiB",
        path, kHeadBytes / 1024));
  };
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path, sniff));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected a trace", path));
  const Importer* reader = named;
  if (reader == nullptr) reader = Detect(TraceProbe{path, std::string_view(content).substr(0, kHeadBytes), stream}, false);
  // Nothing claims it (the sniff above rules that out): the seed text reader's errors say what a
  // record looks like.
  if (reader == nullptr) reader = FindImporter(kSeedTextFormat);
  return reader->read_content(content, path);
}

}  // namespace

std::vector<std::string_view> ReadableFormats() {
  std::vector<std::string_view> names = {"auto"};
  for (const Importer* importer : Importers()) names.push_back(importer->name);
  return names;
}

Result<Trace> ReadTrace(const std::string& path, std::string_view format) {
  Result<Trace> trace = ReadAnyFormat(path, format);
  progress::Begin("analysing", 0);  // what a command does next; it may name its steps itself
  return trace;
}

}  // namespace grainscope
