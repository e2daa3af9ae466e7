#include "format/projections/projections_reader.h"

#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/file.h"
#include "base/numbers.h"
#include "format/format_names.h"
#include "format/projections/projections_log.h"
#include "format/projections/projections_sts.h"
#include "model/message_matcher.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using projections::Creation;
using projections::LogRows;
using projections::Processing;
using projections::RowKind;

// The .sts files in the directory `path`, sorted.
std::vector<std::string> StsFilesIn(const std::string& path) {
  std::error_code ec;
  std::vector<std::string> found;
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec))
    if (e.path().extension() == ".sts") found.push_back(e.path().string());
  std::sort(found.begin(), found.end());
  return found;
}

// The .sts file `path` names, or the one in the directory `path`.
Result<std::string> FindSts(const std::string& path) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return path;
  const std::vector<std::string> found = StsFilesIn(path);
  if (found.size() == 1) return found[0];
  if (found.empty()) return NotFound(fmt::format("{}: no .sts file: not a Projections trace directory", path));
  return InvalidArgument(fmt::format("{}: {} .sts files ({}, {}, ...): name the run's .sts file, runs are never merged",
                                     path, found.size(), fs::path(found[0]).filename().string(),
                                     fs::path(found[1]).filename().string()));
}

// A log's whole text, gzip or plain (zlib reads both); `*truncated` says why it ended early.
Result<std::string> ReadLog(const std::string& path, std::string* truncated) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (f == nullptr) return NotFound(fmt::format("{}: cannot open", path));
  std::string text;
  std::vector<char> buffer(1 << 16);
  int n = 0;
  while ((n = gzread(f, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0) {
    text.append(buffer.data(), static_cast<size_t>(n));
    if (text.size() > MaxStreamBytes()) {
      gzclose(f);
      return DataLoss(fmt::format("{}: more than {} bytes once decompressed (GRAINSCOPE_MAX_STREAM_BYTES)",
                                           path, MaxStreamBytes()));
    }
  }
  int error = Z_OK;
  const char* message = gzerror(f, &error);
  if (n < 0 || (error != Z_OK && error != Z_STREAM_END)) *truncated = fmt::format("{}: {}", path, message);
  gzclose(f);
  return text;
}

class ProjectionsReader {
 public:
  explicit ProjectionsReader(const ReadOptions& options) : b_(std::string(kProjectionsFormat)) {
    b_.SetRepairNesting(!options.strict);
  }

  Result<Trace> Read(const std::string& path) {
    GS_ASSIGN_OR_RETURN(const std::string sts_path, FindSts(path));
    GS_ASSIGN_OR_RETURN(const std::string sts_text, ReadFile(sts_path));
    GS_ASSIGN_OR_RETURN(sts_, ParseProjectionsSts(sts_text, sts_path));
    const std::string base = sts_path.substr(0, sts_path.size() - fs::path(sts_path).extension().string().size());
    GS_RETURN_IF_ERROR(ReadLogs(base));
    MatchMessages();
    for (size_t i = 0; i < pes_.size(); ++i) AppendRows(pes_[i]);
    log_.Report(b_.diagnostics());
    return b_.Finish();
  }

 private:
  struct Pe {
    LocationId location;
    LogRows rows;
  };

  // Every PE's log that is there, found by listing the directory (a .sts file may claim any
  // number of PEs); the ones missing are said together.
  Status ReadLogs(const std::string& base) {
    std::map<int64_t, std::string> logs;  // PE -> its log, .log.gz preferred
    const std::string stem = fs::path(base).filename().string() + ".";
    std::error_code ec;
    for (const fs::directory_entry& e : fs::directory_iterator(fs::path(base).parent_path().empty() ? "." : fs::path(base).parent_path(), ec)) {
      std::string name = e.path().filename().string();
      if (!name.starts_with(stem)) continue;
      const bool gz = name.ends_with(".log.gz");
      if (!gz && !name.ends_with(".log")) continue;
      const std::string_view number = std::string_view(name).substr(stem.size(), name.size() - stem.size() - (gz ? 7 : 4));
      const std::optional<int64_t> pe = ParseNonNegativeInt(number);
      if (!pe || *pe >= sts_.processors) continue;
      if (gz || !logs.contains(*pe)) logs[*pe] = e.path().string();
    }
    for (const auto& [pe, file] : logs) GS_RETURN_IF_ERROR(ReadPeLog(pe, file));
    const uint64_t missing = static_cast<uint64_t>(sts_.processors) - logs.size();
    if (missing > 0) {
      std::string list;
      int listed = 0;
      for (int64_t pe = 0; pe < sts_.processors && listed < 4; ++pe)
        if (!logs.contains(pe)) list += fmt::format("{}{}{}.log[.gz]", listed++ == 0 ? "" : ", ", stem, pe);
      b_.diagnostics().AddCount(Diag::kMissingLocationFiles, missing,
                                fmt::format("{} of {} PE logs missing: {}{}", missing, sts_.processors, list, missing > 4 ? ", ..." : ""));
    }
    if (pes_.empty()) return NotFound(fmt::format("{}.*.log[.gz]: none of the {} PE logs the .sts file lists is there", base, sts_.processors));
    return OkStatus();
  }

  Status ReadPeLog(int64_t pe, const std::string& file) {
    std::string truncated;
    GS_ASSIGN_OR_RETURN(const std::string text, ReadLog(file, &truncated));
    if (!truncated.empty()) b_.diagnostics().Add(Diag::kFileTruncated, truncated);
    const LocationId loc = b_.AddLocation(fmt::format("PE {}", pe), LocationKind::kProcess, pe);
    pes_.push_back({loc, {}});
    log_.Read(text, fs::path(file).filename().string(), !truncated.empty(), pes_.back().rows);
    return OkStatus();
  }

  // A message per (creation, processing that names it); each creation's messages numbered
  // together, so its row sends them in a row. A side with no partner is a message alone.
  void MatchMessages() {
    std::vector<Creation>& creations = log_.creations();
    std::vector<Processing>& processings = log_.processings();
    std::unordered_map<uint64_t, uint32_t> creation_of;
    for (uint32_t c = 0; c < creations.size(); ++c) creation_of.try_emplace(creations[c].key, c);
    std::vector<std::pair<uint32_t, uint32_t>> pairs;  // (creation, processing)
    UnmatchedEnds unmatched;
    for (uint32_t p = 0; p < processings.size(); ++p) {
      const auto it = creation_of.find(processings[p].key);
      if (it != creation_of.end()) {
        pairs.emplace_back(it->second, p);
      } else {
        processings[p].message = b_.AddMessage({.tag = processings[p].entry, .bytes = processings[p].bytes});
        unmatched.NoSend([&] { return fmt::format("{}: {}", log_.Where(processings[p].file, processings[p].line), "a begin of processing of a message no PE's log created"); });
      }
    }
    std::stable_sort(pairs.begin(), pairs.end(), [](auto& a, auto& x) { return a.first < x.first; });
    for (const auto& [c, p] : pairs) {
      const MessageId m = b_.AddMessage({.tag = creations[c].entry, .bytes = creations[c].bytes});
      if (creations[c].receivers++ == 0) creations[c].first_message = m;
      processings[p].message = m;
    }
    for (Creation& c : creations) {
      if (c.receivers > 0) continue;
      c.first_message = b_.AddMessage({.tag = c.entry, .bytes = c.bytes});
      c.receivers = 1;
      c.unmatched = true;
      unmatched.NoReceive([&] { return fmt::format("{}: {}", log_.Where(c.file, c.line), "a message created but never processed by a PE whose log is here"); });
    }
    unmatched.Report(b_.diagnostics());
  }

  // A PE's rows in time order (file order at equal times) as events.
  void AppendRows(Pe& pe) {
    auto earlier = [](const projections::Row& a, const projections::Row& x) { return a.time < x.time; };
    if (!std::is_sorted(pe.rows.begin(), pe.rows.end(), earlier)) std::stable_sort(pe.rows.begin(), pe.rows.end(), earlier);
    const LocationId loc = pe.location;
    for (const projections::Row& r : pe.rows) {
      switch (r.kind) {
        case RowKind::kEnter: b_.Enter(loc, r.time, RegionFor(r.arg)); break;
        case RowKind::kLeave: b_.Leave(loc, r.time, RegionFor(r.arg)); break;
        case RowKind::kMarker: b_.Marker(loc, r.time, b_.Intern(log_.label(r.arg))); break;
        case RowKind::kCreation: {
          const Creation& c = log_.creations()[r.arg];
          for (uint32_t k = 0; k < c.receivers; ++k) b_.Send(loc, r.time, MessageId(c.first_message.value + k));
          break;
        }
        case RowKind::kProcessing: b_.Recv(loc, r.time, log_.processings()[r.arg].message); break;
      }
    }
  }

  // The region of a log's region number (projections_log.h: entries, then named regions).
  RegionId RegionFor(uint32_t region) {
    auto [it, inserted] = regions_.try_emplace(region, RegionId());
    if (inserted) {
      const projections::RegionKey key = log_.region(region);
      it->second = key.entry >= 0 ? b_.AddRegion(sts_.EntryName(key.entry), RegionRole::kGrain, key.entry)
                                  : b_.AddRegion(key.name, key.role, -1);
    }
    return it->second;
  }

  TraceBuilder b_;
  ProjectionsSts sts_;
  projections::LogReader log_{sts_};
  std::vector<Pe> pes_;
  std::unordered_map<uint32_t, RegionId> regions_;
};

Sniff SniffProjections(const TraceProbe& probe) {
  return !probe.stream && LooksLikeProjections(probe.path) ? Sniff::kSure : Sniff::kNo;
}

}  // namespace

Result<Trace> ReadProjections(const std::string& path, const ReadOptions& options) {
  return ProjectionsReader(options).Read(path);
}

bool LooksLikeProjections(const std::string& path) {
  std::error_code ec;
  // A directory holding a .sts file is this reader's whatever that file holds (it says what is
  // wrong with it), as is one of several runs (it says why it reads none of them).
  if (fs::is_directory(path, ec)) return !StsFilesIn(path).empty();
  if (fs::path(path).extension() != ".sts" || !fs::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  std::string head(32, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<size_t>(std::max<std::streamsize>(in.gcount(), 0)));
  return LooksLikeProjectionsSts(head);
}

constinit const Importer kProjectionsImporter{kProjectionsFormat, SniffProjections, ReadProjections, nullptr, ".sts",
                                              "Charm++ Projections"};

}  // namespace grainscope
