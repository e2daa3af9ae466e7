#include "format/detection.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "base/file.h"

namespace grainscope {

Candidate CandidateOf(const Importer& importer) {
  return Candidate{importer.sniff, importer.read_path != nullptr, importer.file_kind,
                   importer.read_path != nullptr && importer.read_content != nullptr};
}

size_t MostSure(std::span<const Candidate> candidates, const TraceProbe& probe) {
  size_t plausible = candidates.size();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Sniff sniff = candidates[i].sniff(probe);
    if (sniff == Sniff::kSure) return i;
    if (sniff == Sniff::kPlausible && plausible == candidates.size()) plausible = i;
  }
  return plausible;
}

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

Result<Detected> Detect(const std::string& path, std::span<const Candidate> candidates, const DetectionRules& rules) {
  // A pipe or device is read once (bounded: base/file.h), never sniffed before: that would eat its
  // first bytes. So readers of paths (a mapped .gst, an OTF2 archive, a directory of ranks) are
  // chosen from the name and a regular file's first bytes, before the content is read.
  const InputHead input = ReadInputHead(path);
  size_t chosen = MostSure(candidates, TraceProbe{path, input.head, input.stream});
  std::error_code ec;
  const bool directory = std::filesystem::is_directory(path, ec);
  if (chosen < candidates.size() && candidates[chosen].reads_paths &&
      (!rules.paths_need_bytes || !input.head.empty() || directory)) {
    return Detected{chosen, {}};
  }
  if (directory && rules.not_a_directory != nullptr) return rules.not_a_directory(path);
  // What is decided from the first 64 KiB, checked before the rest is read. A pipe shows its first
  // bytes only here: a reader of paths cannot read it.
  auto check = [&](std::string_view head) -> Status {
    if (head.empty()) return OkStatus();
    chosen = MostSure(candidates, TraceProbe{path, head, input.stream});
    if (chosen == candidates.size()) return rules.nothing_takes(path, head);
    const Candidate& c = candidates[chosen];
    return c.reads_paths && !c.also_reads_content ? StreamNeedsAFile(path, c.file_kind) : OkStatus();
  };
  GS_ASSIGN_OR_RETURN(std::string content, ReadFile(path, check));
  if (content.empty()) return DataLoss(fmt::format("{}: the file is empty, expected {}", path, rules.expected));
  return Detected{chosen, std::move(content)};
}

Status StreamNeedsAFile(const std::string& path, std::string_view file_kind) {
  return DataLoss(fmt::format("{}: a {} trace from a pipe or device: the {} reader maps a file, save it to one", path,
                              file_kind, file_kind));
}

}  // namespace grainscope
