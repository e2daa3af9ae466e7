#include "format/gst/gst_dir_reader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>
#include <vector>

#include <fmt/format.h>

#include "base/parallel.h"
#include "base/progress.h"
#include "format/gst/gst_mpi_labels.h"
#include "format/gst/gst_rank_part.h"
#include "format/gst/gst_reader.h"
#include "format/limits.h"
#include "format/one_run.h"
#include "model/metadata_keys.h"
#include "model/rendezvous.h"
#include "model/trace_parts.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

// A rank file read as a part, with where it came from.
struct RankFile {
  std::string path;
  gst::RankPart part;
  const gst::RankLabels& labels() const { return part.labels; }
  int rank() const { return part.labels.rank; }

  // Onto rank 0's CLOCK_MONOTONIC (ns): the local monotonic clock (anchored at the init label)
  // plus the offset to rank 0, interpolated between init and finalize.
  ClockMap Clock() const {
    const gst::RankLabels& l = part.labels;
    if (!l.init) return ClockMap{part.origin_monotonic_ns.value_or(0)};
    // The file's own clock sample is exact; the label's reading is a fallback (it may be off by a
    // preemption between the two reads).
    ClockMap c{part.origin_monotonic_ns.value_or(l.init->monotonic_ns - l.init_time) + l.init->offset_ns};
    if (l.finalize && l.finalize_time > l.init_time) {
      c.drift_from = l.init_time;
      c.drift_to = l.finalize_time;
      c.drift_ns = l.finalize->offset_ns - l.init->offset_ns;
    }
    return c;
  }
};

std::vector<std::string> GstFiles(const std::string& dir) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() == ".gst" && entry.is_regular_file(ec)) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

// A trace is one run (format/one_run.h): a rank file's run is its run id, the name the library
// gives rank r's file is rank-<r, 5 digits>.gst. Returns why each file was left out.
std::vector<std::string> KeepOneRun(std::vector<RankFile>& files) {
  std::vector<RankFileFacts> facts;
  for (const RankFile& f : files) {
    const gst::RankLabels& l = f.labels();
    facts.push_back({f.path, l.labelled, l.rank, l.run ? std::optional(fmt::format("run {:016x}", *l.run)) : std::nullopt,
                     fs::path(f.path).filename() == fmt::format("rank-{:05}.gst", l.rank)});
  }
  const std::vector<std::optional<std::string>> why = ChooseOneRun(facts);
  std::vector<std::string> left_out;
  std::vector<RankFile> kept;
  for (size_t i = 0; i < files.size(); ++i) {
    if (why[i]) {
      left_out.push_back(*why[i]);
    } else {
      kept.push_back(std::move(files[i]));
    }
  }
  files = std::move(kept);
  return left_out;
}

// Every rank file read as a part, one per task on `threads` threads; progress in bytes as each
// file is done. A file that cannot be read leaves its reason in `unreadable` and is left out.
std::vector<RankFile> ReadRankFiles(const std::vector<std::string>& paths, unsigned threads,
                                    std::vector<std::string>& unreadable, Status& first_error) {
  std::vector<uint64_t> sizes;
  for (const std::string& p : paths) {
    std::error_code ec;
    const uint64_t size = fs::file_size(p, ec);
    sizes.push_back(ec ? 0 : size);
  }
  progress::Begin("reading", std::accumulate(sizes.begin(), sizes.end(), uint64_t{0}));
  std::vector<std::optional<Result<gst::RankPart>>> read(paths.size());
  ParallelFor(paths.size(), threads, [&](size_t i) {
    read[i] = gst::ReadRankPart(paths[i]);
    progress::AddDone(sizes[i]);
  });
  std::vector<RankFile> files;
  for (size_t i = 0; i < paths.size(); ++i) {
    Result<gst::RankPart>& r = *read[i];
    if (!r.ok()) {
      // A rank killed while its file was being created (mpirun kills the others when one rank
      // fails) must not hide the other ranks: skipped and counted, fatal only when all are bad.
      if (first_error.ok()) first_error = r.status();
      unreadable.push_back(r.status().message());
      continue;
    }
    files.push_back(RankFile{paths[i], std::move(*r)});
  }
  return files;
}

// The parts in rank order, with their clocks, and the merge's options.
MergeOptions Prepare(std::vector<RankFile>& files, std::vector<TracePart>& parts) {
  MergeOptions options;
  options.format = std::string(kGstFormat);
  options.world_communicator = "w";
  options.describe_channel = [](std::string_view key) -> std::optional<ChannelEnds> {
    auto m = gst::ParseMpiMessageName(key);
    if (!m) return std::nullopt;
    return ChannelEnds{m->comm, m->sender, m->receiver, m->tag};
  };
  // The MPI library's eager limit as the first rank that recorded one read it, else the assumed one.
  for (const RankFile& f : files) {
    if (!f.labels().eager_limit) continue;
    options.eager_limit.emplace(f.labels().eager_limit->bytes,
                                fmt::format("read from the MPI library: MPI_T variable {}", f.labels().eager_limit->variable));
    break;
  }
  options.assumed_eager_limit = kAssumedEagerLimitBytes;
  options.assumed_eager_limit_source = "assumed: the recording did not say";
  options.part_only_diagnostics = {Diag::kReceivesWithoutSend, Diag::kSendsWithoutReceive};  // per file, meaningless
  options.metadata.emplace_back(metadata::kMpiRanks, std::to_string(files.size()));
  for (RankFile& f : files) {
    TracePart& part = f.part.part;
    part.rank = f.rank();
    part.clock = f.Clock();
    const gst::RankLabels& l = f.labels();
    if (l.labelled && !f.part.has_init) part.notes.Add(Diag::kRanksWithoutMpiInit, fmt::format("{}: rank {}", f.path, f.rank()));
    const std::string rank = fmt::format("{}{} ", metadata::kRankPrefix, f.rank());
    if (l.init) part.metadata.emplace_back(rank + std::string(metadata::kClockOffsetInitNs), std::to_string(l.init->offset_ns));
    if (l.finalize) part.metadata.emplace_back(rank + std::string(metadata::kClockOffsetFinalizeNs), std::to_string(l.finalize->offset_ns));
    parts.push_back(std::move(part));
  }
  return options;
}

}  // namespace

bool LooksLikeGstDirectory(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && !GstFiles(path).empty();
}

Result<Trace> ReadGstDirectory(const std::string& path, const ReadOptions& options) {
  const std::vector<std::string> paths = GstFiles(path);
  if (paths.empty()) return NotFound(fmt::format("{}: no .gst files in the directory", path));
  if (paths.size() > limits::kMaxRankFiles) {
    return DataLoss(fmt::format("{}: {} .gst files exceed the limit kMaxRankFiles = {} (docs/formats/gst.md)", path,
                                paths.size(), limits::kMaxRankFiles));
  }
  std::vector<std::string> unreadable;
  Status first_error;
  std::vector<RankFile> files = ReadRankFiles(paths, Threads(options.threads), unreadable, first_error);
  std::vector<std::string> other_runs = KeepOneRun(files);
  // Files without a rank label (not written by libgrainscope-mpi) follow the ranks, by name.
  int next = 0;
  for (const RankFile& f : files) next = std::max(next, f.rank() + 1);
  for (RankFile& f : files) {
    if (f.rank() < 0) f.part.labels.rank = next++;
  }
  std::stable_sort(files.begin(), files.end(), [](const RankFile& a, const RankFile& b) { return a.rank() < b.rank(); });
  for (size_t i = 1; i < files.size(); ++i) {
    if (files[i].rank() == files[i - 1].rank()) {
      return DataLoss(fmt::format("{}: {} and {} both hold rank {}", path, files[i - 1].path, files[i].path, files[i].rank()));
    }
  }
  if (files.empty()) return first_error;
  std::vector<TracePart> parts;
  MergeOptions merge = Prepare(files, parts);
  for (const std::string& why : unreadable) merge.notes.Add(Diag::kUnreadableRankFiles, why);
  for (const std::string& why : other_runs) merge.notes.Add(Diag::kOtherRunFiles, why);
  return MergeParts(std::move(parts), merge);
}

}  // namespace grainscope
