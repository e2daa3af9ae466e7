#include "format/chrome/chrome_rank_dir.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/file.h"
#include "base/parallel.h"
#include "base/progress.h"
#include "format/chrome/chrome_documents.h"
#include "base/mapped_file.h"
#include "format/chrome/chrome_json.h"
#include "format/chrome/chrome_nccl_match.h"
#include "format/chrome/chrome_reader.h"
#include "format/format_names.h"
#include "format/limits.h"
#include "format/one_run.h"
#include "model/trace_parts.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::vector<std::string> JsonFiles(const std::string& dir) {
  std::vector<std::string> paths;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    std::error_code type_ec;
    if (entry.path().extension() == ".json" && entry.is_regular_file(type_ec)) paths.push_back(entry.path().string());
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

// One file of the directory, read as a part of the trace, with what it says about its job.
struct RankFile {
  TracePart part;
  std::optional<int64_t> world_size;
  std::string backend;
};

std::optional<int64_t> IntIn(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

// Reads distributedInfo; false when the file names no rank (not a rank file).
bool ReadDistributedInfo(const json& doc, RankFile& f) {
  if (!doc.is_object()) return false;
  auto info = doc.find("distributedInfo");
  if (info == doc.end() || !info->is_object()) return false;
  const std::optional<int64_t> rank = IntIn(*info, "rank");
  if (!rank || *rank < 0) return false;
  f.part.rank = *rank;
  f.world_size = IntIn(*info, "world_size");
  if (auto b = info->find("backend"); b != info->end() && b->is_string()) f.backend = b->get<std::string>();
  return true;
}

// "2..127" / "5" / "2..3, 7": the numbers of `ranks` (sorted), in runs.
std::string RankRuns(const std::vector<int64_t>& ranks) {
  std::string out;
  for (size_t i = 0; i < ranks.size();) {
    size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += i == j ? fmt::format("{}", ranks[i]) : fmt::format("{}..{}", ranks[i], ranks[j]);
    if (out.size() > 200 && j + 1 < ranks.size()) return out + ", ...";
    i = j + 1;
  }
  return out;
}

// Keeps one run (format/one_run.h; a file's run is its job's world size and backend) and in it
// the ranks below the world size, in rank order. Returns why each other file was left out.
std::vector<std::string> KeepOneRun(std::vector<RankFile>& files) {
  std::vector<RankFileFacts> facts;
  for (const RankFile& f : files) {
    const std::string size = f.world_size ? std::to_string(*f.world_size) : "?";
    facts.push_back({f.part.name, true, f.part.rank, fmt::format("a job of {} ranks ({})", size, f.backend)});
  }
  const std::vector<std::optional<std::string>> why = ChooseOneRun(facts);
  std::vector<std::string> others;
  std::vector<RankFile> kept;
  for (size_t i = 0; i < files.size(); ++i) {
    RankFile& f = files[i];
    if (why[i]) {
      others.push_back(*why[i]);
    } else if (f.world_size && f.part.rank >= *f.world_size) {
      others.push_back(fmt::format("{}: rank {} of a job of {} ranks: not merged", f.part.name, f.part.rank, *f.world_size));
    } else {
      kept.push_back(std::move(f));
    }
  }
  std::stable_sort(kept.begin(), kept.end(), [](const RankFile& a, const RankFile& b) { return a.part.rank < b.part.rank; });
  files = std::move(kept);
  return others;
}

// One file read as a part: scanned, its rank found, its events made a trace of their own (the
// file's bytes are then freed: a task holds one at a time).
Status ReadRankFile(const std::string& path, RankFile& f) {
  f.part.name = path;
  MappedFile file;
  GS_RETURN_IF_ERROR(file.Open(path));
  if (file.text().empty()) return DataLoss(fmt::format("{}: the file is empty, expected Chrome JSON", path));
  GS_ASSIGN_OR_RETURN(chrome::Document doc,
                      chrome::OpenDocument(file.text(), path, [&file](size_t offset) { file.ReleaseBefore(offset); }));
  doc.report_progress = false;  // the bar counts files here
  if (!ReadDistributedInfo(doc.layout.header, f))
    return DataLoss(fmt::format("{}: names no rank (no \"distributedInfo\": {{\"rank\": ...}})", path));
  GS_ASSIGN_OR_RETURN(f.part.trace, chrome::ReadDocument(std::move(doc), &f.part.region_keys, &f.part.collectives));
  return OkStatus();
}

// The files read as parts, with their ranks, one file per task on `threads` threads; one that
// cannot be read or parsed, or names no rank, is left out, its reason in `unreadable` and the
// first such error (by name) in `first_error`.
std::vector<RankFile> ReadRankFiles(const std::vector<std::string>& paths, unsigned threads,
                                    std::vector<std::string>& unreadable, Status& first_error) {
  std::vector<RankFile> read(paths.size());
  std::vector<Status> why(paths.size());
  progress::Begin("reading", paths.size());
  ParallelFor(paths.size(), threads, [&](size_t i) {
    why[i] = ReadRankFile(paths[i], read[i]);
    progress::AddDone(1);
  });
  std::vector<RankFile> files;
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!why[i].ok()) {
      if (first_error.ok()) first_error = why[i];
      unreadable.push_back(why[i].message());
      continue;
    }
    files.push_back(std::move(read[i]));
  }
  return files;
}

Result<Trace> ReadChromeRankDirectory(const std::string& path, const ReadOptions& options) {
  const std::vector<std::string> paths = JsonFiles(path);
  if (paths.empty()) return NotFound(fmt::format("{}: no .json files in the directory", path));
  if (paths.size() > limits::kMaxRankFiles) {
    return DataLoss(fmt::format("{}: {} .json files exceed the limit kMaxRankFiles = {}", path, paths.size(),
                                limits::kMaxRankFiles));
  }
  MergeOptions merge{.format = std::string(kChromeRanksFormat), .shape = PartShape::kWholeFiles};
  // A file's NCCL p2p kernels are message ends whose peer is in another file: paired in the merge,
  // which reports what stays unmatched.
  merge.pairs_across_files = [](std::string_view channel) { return channel.starts_with(chrome::kNcclP2pChannel); };
  merge.part_only_diagnostics = {Diag::kReceivesWithoutSend, Diag::kSendsWithoutReceive};
  std::vector<std::string> unreadable;
  Status first_error;
  std::vector<RankFile> files = ReadRankFiles(paths, Threads(options.threads), unreadable, first_error);
  if (files.empty()) return first_error;
  const std::vector<std::string> other_runs = KeepOneRun(files);
  std::vector<int64_t> missing;
  if (const std::optional<int64_t> size = files.front().world_size) {
    size_t next = 0;
    for (int64_t r = 0; r < *size && missing.size() < limits::kMaxRankFiles; ++r) {
      if (next < files.size() && files[next].part.rank == r) {
        ++next;
      } else {
        missing.push_back(r);
      }
    }
    merge.metadata.emplace_back("distributed.world_size", std::to_string(*size));
  }
  if (!files.front().backend.empty()) merge.metadata.emplace_back("distributed.backend", files.front().backend);
  if (options.strict && (!unreadable.empty() || !other_runs.empty() || !missing.empty())) {
    const std::string first = !unreadable.empty() ? unreadable.front()
                              : !other_runs.empty() ? other_runs.front()
                                                    : fmt::format("ranks {} have no file", RankRuns(missing));
    return DataLoss(fmt::format("{}: not one whole run (--strict): {}", path, first));
  }
  for (const std::string& why : unreadable) merge.notes.Add(Diag::kUnreadableRankFiles, why);
  for (const std::string& why : other_runs) merge.notes.Add(Diag::kOtherRunFiles, why);
  if (!missing.empty()) {
    merge.notes.AddCount(
        Diag::kMissingRankFiles, missing.size(),
        fmt::format("{}: rank{} {} of the job's {} (distributedInfo.world_size) {} no file; analysed: {}", path,
                    missing.size() == 1 ? "" : "s", RankRuns(missing), *files.front().world_size, missing.size() == 1 ? "has" : "have", RankRuns([&] {
                      std::vector<int64_t> kept;
                      for (const RankFile& f : files) kept.push_back(f.part.rank);
                      return kept;
                    }())));
  }
  std::vector<TracePart> parts;
  for (RankFile& f : files) parts.push_back(std::move(f.part));
  chrome::MatchCollectivesByTime(parts, merge.notes, path);
  chrome::AlignClocksOnCollectives(parts, merge.notes, path);
  Result<Trace> trace = MergeParts(std::move(parts), merge);
  if (!trace.ok()) return DataLoss(fmt::format("{}: {}", path, trace.status().message()));
  return trace;
}

Sniff SniffChromeRankDirectory(const TraceProbe& probe) {
  return !probe.stream && LooksLikeChromeRankDirectory(probe.path) ? Sniff::kSure : Sniff::kNo;
}

}  // namespace

bool LooksLikeChromeRankDirectory(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return false;
  const std::vector<std::string> paths = JsonFiles(path);
  if (paths.empty()) return false;
  std::ifstream in(paths.front(), std::ios::binary);
  std::string head(kHeadBytes, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return LooksLikeChromeJson(head) && head.find("\"distributedInfo\"") != std::string::npos;
}

constinit const Importer kChromeRanksImporter{kChromeRanksFormat, SniffChromeRankDirectory, ReadChromeRankDirectory,
                                              nullptr, "Chrome JSON rank directory",
                                              "PyTorch profiler rank directories"};

}  // namespace grainscope
