#include "format/trace_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/file.h"
#include "base/progress.h"
#include "format/format_names.h"
#include "format/importer.h"

namespace grainscope {
namespace {

bool ReadsPaths(const Importer* importer) { return importer->read_path != nullptr; }

// "seed text, OTF2, Chrome JSON, .gst": every format a message may say grainscope reads.
std::string FormatList() {
  std::vector<std::string_view> names;
  for (const Importer* i : Importers()) names.push_back(i->description);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Detection found no reader. The seed text is the one format without a signature, so what its
// records look like is spelled out.
Status NoReaderTakes(const std::string& path, std::string_view head) {
  const std::string_view what =
      head.starts_with(std::string_view("SQLite format 3\0", 16)) ? " (it is an SQLite database; Nsight Systems exports are not read yet)" : "";
  return DataLoss(fmt::format("{}: not a trace grainscope reads ({}){}: no known header in its first {} KiB, and no "
                              "seed text record (a line starting with start, stop, sendBegin, sendEnd, recvBegin or "
                              "recvEnd)",
                              path, FormatList(), what, kHeadBytes / 1024));
}

// A directory no reader of paths claims. Formats people often have that grainscope does not read
// yet are named, so that the message says what the directory is.
Status NotATraceDirectory(const std::string& path) {
  std::error_code ec;
  std::string what;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "trace.db" || name == "experiment.xml") what = " (it looks like an HPCToolkit database)";
    if (name.ends_with(".sts")) what = " (it looks like Charm++ Projections logs)";
  }
  return DataLoss(fmt::format("{}: a directory that is not a trace grainscope reads{}: an OTF2 archive is read "
                              "through its *.otf2 anchor file, an MPI .gst trace is a directory of rank-N.gst files, a PyTorch "
                              "profiler job a directory of *.json files naming their rank (distributedInfo); "
                              "grainscope reads {}",
                              path, what, FormatList()));
}

// The reader of `kind` (paths or content) most sure of `probe` (MostSure: importer.h).
const Importer* Detect(const TraceProbe& probe, bool reads_paths) {
  std::vector<const Importer*> kind;
  for (const Importer* i : Importers())
    if (ReadsPaths(i) == reads_paths) kind.push_back(i);
  return MostSure<Importer>(kind, probe);
}

Result<Trace> ReadAnyFormat(const std::string& path, std::string_view format, const ReadOptions& options) {
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
  if (named != nullptr && named->read_path != nullptr) return named->read_path(path, options);
  InputHead input;
  if (named == nullptr) {
    input = ReadInputHead(path);
    if (const Importer* reader = Detect(TraceProbe{path, input.head, input.stream}, true)) {
      return reader->read_path(path, options);
    }
  }
  const bool stream = input.stream;
  // What auto-detection decides from the first 64 KiB, checked before the rest is read, so that an
  // input that is no trace fails at once even when it never ends (/dev/zero).
  auto sniff = [&](std::string_view head) -> Status {
    if (named != nullptr || head.empty()) return OkStatus();
    const TraceProbe probe{path, head, stream};
    if (const Importer* needs_file = stream ? Detect(probe, true) : nullptr) return StreamNeedsAFile(path, *needs_file);
    if (Detect(probe, false) != nullptr) return OkStatus();
    return NoReaderTakes(path, head);
  };
  if (named == nullptr && std::filesystem::is_directory(path, ec)) return NotATraceDirectory(path);
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path, sniff));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected a trace", path));
  const Importer* reader = named;
  if (reader == nullptr) reader = Detect(TraceProbe{path, std::string_view(content).substr(0, kHeadBytes), stream}, false);
  // Nothing claims it (the sniff above rules that out): the seed text reader's errors say what a
  // record looks like.
  if (reader == nullptr) reader = FindImporter(kSeedTextFormat);
  return reader->read_content(content, path, options);
}

}  // namespace

InputHead ReadInputHead(const std::string& path) {
  InputHead input;
  std::error_code ec;
  input.stream = std::filesystem::exists(path, ec) && !std::filesystem::is_regular_file(path, ec) &&
                 !std::filesystem::is_directory(path, ec);
  if (input.stream) return input;
  // Fewer bytes if the file is shorter, none if it cannot be read: the reader chosen afterwards
  // reports that properly.
  input.head.resize(kHeadBytes);
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  const ssize_t n = fd < 0 ? 0 : ::read(fd, input.head.data(), kHeadBytes);
  if (fd >= 0) ::close(fd);
  input.head.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return input;
}

std::vector<const Importer*> ImportersInDetectionOrder() {
  std::vector<const Importer*> order;
  for (const bool paths : {true, false}) {
    for (const Importer* importer : Importers())
      if (ReadsPaths(importer) == paths) order.push_back(importer);
  }
  return order;
}

Result<Trace> ReadTraceContent(std::string_view content, const std::string& path, const Importer& reader,
                               const ReadOptions& options) {
  progress::Begin("reading", content.size());
  Result<Trace> trace = reader.read_content(content, path, options);
  progress::Begin("analysing", 0);
  return trace;
}

Status StreamNeedsAFile(const std::string& path, const Importer& reader) {
  return DataLoss(fmt::format("{}: a {} trace from a pipe or device: the {} reader maps a file, save it to one",
                              path, reader.file_kind, reader.file_kind));
}

std::vector<std::string_view> ReadableFormats() {
  std::vector<std::string_view> names = {"auto"};
  for (const Importer* importer : Importers()) names.push_back(importer->name);
  return names;
}

namespace {
std::mutex g_memory_mutex;
std::map<std::string, const Trace*>& MemoryTraces() {
  static auto* traces = new std::map<std::string, const Trace*>();
  return *traces;
}
std::optional<Trace> FindMemoryTrace(const std::string& name) {
  std::lock_guard lock(g_memory_mutex);
  const auto it = MemoryTraces().find(name);
  if (it == MemoryTraces().end()) return std::nullopt;
  return it->second->Copy();
}
}  // namespace

void PutMemoryTrace(const std::string& name, const Trace* trace) {
  std::lock_guard lock(g_memory_mutex);
  MemoryTraces().insert_or_assign(name, trace);
}

void RemoveMemoryTrace(const std::string& name) {
  std::lock_guard lock(g_memory_mutex);
  MemoryTraces().erase(name);
}

bool IsMemoryTrace(const std::string& name) {
  std::lock_guard lock(g_memory_mutex);
  return MemoryTraces().count(name) > 0;
}

Result<Trace> ReadTrace(const std::string& path, std::string_view format, const ReadOptions& options) {
  if (std::optional<Trace> held = FindMemoryTrace(path)) return *std::move(held);
  Result<Trace> trace = ReadAnyFormat(path, format, options);
  progress::Begin("analysing", 0);  // what a command does next; it may name its steps itself
  return trace;
}

}  // namespace grainscope
