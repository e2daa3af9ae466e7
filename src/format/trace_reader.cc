#include "format/trace_reader.h"

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/file.h"
#include "base/progress.h"
#include "format/detection.h"
#include "format/importer.h"

namespace grainscope {
namespace {

// "seed text, OTF2, Chrome JSON, .gst": every format a message may say grainscope reads.
std::string FormatList() {
  std::vector<std::string_view> names;
  for (const Importer* i : Importers()) names.push_back(i->description);
  return fmt::format("{}", fmt::join(names, ", "));
}

// Detection found no reader. The seed text is the one format without a signature, so what its
// records look like is spelled out.
Status NoReaderTakes(const std::string& path, std::string_view head) {
  return DataLoss(fmt::format("{}: not a trace grainscope reads ({}): no known header in its first {} KiB, and no "
                              "seed text record (a line starting with start, stop, sendBegin, sendEnd, recvBegin or "
                              "recvEnd)",
                              path, FormatList(), kHeadBytes / 1024));
}

// A directory no reader of paths claims. Formats people often have that grainscope does not read
// yet are named, so that the message says what the directory is.
Status NotATraceDirectory(const std::string& path) {
  std::error_code ec;
  std::string what;
  for (const auto& entry : std::filesystem::directory_iterator(path, ec)) {
    const std::string name = entry.path().filename().string();
    if (name == "experiment.xml") what = " (it looks like an HPCToolkit database of before version 4, which grainscope does not read)";
  }
  return DataLoss(fmt::format("{}: a directory that is not a trace grainscope reads{}: an OTF2 archive is read "
                              "through its *.otf2 anchor file, an MPI .gst trace is a directory of rank-N.gst files, a PyTorch "
                              "profiler job a directory of *.json files naming their rank (distributedInfo), a Charm++ "
                              "Projections run a directory holding its .sts file, an HPCToolkit database one holding meta.db "
                              "and trace.db; "
                              "grainscope reads {}",
                              path, what, FormatList()));
}

constexpr DetectionRules kTraceRules{"a trace", NoReaderTakes, NotATraceDirectory};

// "auto": the trace readers in detection order, through the one rule (format/detection.h).
Result<Trace> ReadDetected(const std::string& path, const ReadOptions& options) {
  static const std::vector<const Importer*> readers = ImportersInDetectionOrder();
  static const std::vector<Candidate> candidates = [] {
    std::vector<Candidate> all;
    for (const Importer* i : readers) all.push_back(CandidateOf(*i));
    return all;
  }();
  GS_ASSIGN_OR_RETURN(Detected detected, Detect(path, candidates, kTraceRules));
  const Importer& reader = *readers[detected.chosen];
  if (reader.read_path != nullptr && (reader.read_content == nullptr || detected.content.empty()))
    return reader.read_path(path, options);
  return reader.read_content(detected.content, path, options);
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
  if (named == nullptr) return ReadDetected(path, options);
  if (named->read_path != nullptr && (named->read_content == nullptr || size > 0)) return named->read_path(path, options);
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected {}", path, kTraceRules.expected));
  return named->read_content(content, path, options);
}

}  // namespace

std::vector<const Importer*> ImportersInDetectionOrder() {
  std::vector<const Importer*> order;
  for (const bool paths_only : {true, false}) {
    for (const Importer* importer : Importers())
      if ((importer->read_content == nullptr) == paths_only) order.push_back(importer);
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
