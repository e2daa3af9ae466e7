// A directory of rank files is one run: which files the reader merges. Recording never merges two
// runs, and neither does reading: every reader of a rank directory (.gst, a Kineto job) keeps one
// run by this one rule, and names each file it leaves out (other_run_files).
//
//   * a file that is no recorder's rank file (it names no run and no rank) is not the rule's:
//     kept;
//   * a rank file that names no run beside files that do is left out;
//   * the run kept is the one with the most ranks; on a tie, the one whose lowest rank's file has
//     the name the recorder gives it (rank-00000.gst), then the one holding the lowest rank, then
//     the one whose file comes first by name;
//   * in that run, one file per rank: the first by name (the recorder's own name first); the
//     others hold a rank again.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>

namespace grainscope {

struct RankFileFacts {
  std::string path;
  bool rank_file = true;           // false: not a recorder's rank file (no run, no rank): kept
  int64_t rank = -1;
  std::optional<std::string> run;  // the run it says it belongs to, in the format's words
  bool canonical = false;          // its name is the one the recorder gives its rank
};

// For each file, in order: nullopt when it is merged, else why it is left out.
inline std::vector<std::optional<std::string>> ChooseOneRun(std::span<const RankFileFacts> files) {
  std::vector<std::optional<std::string>> out(files.size());
  // A file's place among those of its run: the recorder's own name first, then by name.
  auto before = [&](size_t a, size_t b) {
    return std::make_tuple(!files[a].canonical, files[a].path) < std::make_tuple(!files[b].canonical, files[b].path);
  };
  std::map<std::string, std::map<int64_t, size_t>> runs;  // run -> rank -> its first file
  for (size_t i = 0; i < files.size(); ++i) {
    if (!files[i].rank_file || !files[i].run) continue;
    auto [it, added] = runs[*files[i].run].try_emplace(files[i].rank, i);
    if (!added && before(i, it->second)) it->second = i;
  }
  if (runs.empty()) return out;  // files that name no run (older recorders): nothing to tell apart
  auto score = [&](const std::map<int64_t, size_t>& ranks) {
    const size_t lowest = ranks.begin()->second;
    return std::make_tuple(ranks.size(), files[lowest].canonical, -ranks.begin()->first);
  };
  auto chosen = runs.begin();
  for (auto it = runs.begin(); it != runs.end(); ++it) {
    const auto a = score(it->second), b = score(chosen->second);
    if (a > b || (a == b && before(it->second.begin()->second, chosen->second.begin()->second))) chosen = it;
  }
  const std::string& run = chosen->first;
  for (size_t i = 0; i < files.size(); ++i) {
    const RankFileFacts& f = files[i];
    if (!f.rank_file) continue;
    if (!f.run) {
      out[i] = fmt::format("{}: a rank file that names no run beside the files of {}: not merged", f.path, run);
    } else if (*f.run != run) {
      out[i] = fmt::format("{}: rank {} of {}, not of {} (the run this trace is): not merged", f.path, f.rank, *f.run, run);
    } else if (chosen->second.at(f.rank) != i) {
      out[i] = fmt::format("{}: holds rank {} again ({} holds it): not merged", f.path, f.rank,
                           files[chosen->second.at(f.rank)].path);
    }
  }
  return out;
}

}  // namespace grainscope
