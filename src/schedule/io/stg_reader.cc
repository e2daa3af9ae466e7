// Standard Task Graph Set format (Kasahara & Tobita, Waseda University). Sample:
//
//           50
//            0          0          0
//            1          9          1          0
//           10          2          3          2          6          8
//           ...
//           51          0          6         38         41   ...
//   # Precedence constraints generator : sameprob
//
// First the number n of real tasks, then n + 2 records `id time #preds pred...` for ids 0..n+1 in
// that order (0 and n+1 are dummy entry and exit tasks of time 0), then comment lines. Records
// are read as a token stream, so a long predecessor list may continue on the next line.
#include <fmt/format.h>

#include "format/limits.h"
#include "base/numbers.h"
#include "schedule/io/readers.h"
#include "schedule/io/text_cursor.h"

namespace grainscope {

Result<TaskDag> ReadStg(std::string_view content, const std::string& source) {
  TokenCursor in(content, source, CommentStyle::kHashLines);
  if (in.AtEnd()) return DataLoss(fmt::format("{}: no STG data: expected the number of tasks", source));
  GS_ASSIGN_OR_RETURN(const int64_t n, in.NextInt("the number of tasks (STG's first line)"));
  if (n > limits::kMaxStgTasks) {
    return in.ErrorHere(fmt::format("{} tasks exceeds the limit kMaxStgTasks = {} (src/format/limits.h)", n,
                                    limits::kMaxStgTasks));
  }
  const int64_t records = n + 2;
  std::vector<int64_t> weight(records);
  std::vector<std::pair<int64_t, int64_t>> edges;  // (pred, task)
  for (int64_t id = 0; id < records; ++id) {
    const std::string what = fmt::format("task id {}", id);
    GS_ASSIGN_OR_RETURN(const int64_t got, in.NextInt(what));
    if (got != id) return in.ErrorHere(fmt::format("expected task id {} (records in id order), got {}", id, got));
    GS_ASSIGN_OR_RETURN(weight[id], in.NextInt(fmt::format("the processing time of task {}", id)));
    GS_ASSIGN_OR_RETURN(const int64_t preds, in.NextInt(fmt::format("the number of predecessors of task {}", id)));
    if (preds > n + 1) {
      return in.ErrorHere(fmt::format("task {} has {} predecessors, more than there are tasks", id, preds));
    }
    for (int64_t k = 0; k < preds; ++k) {
      GS_ASSIGN_OR_RETURN(const int64_t pred, in.NextInt(fmt::format("predecessor {} of task {}", k + 1, id)));
      if (pred >= records) {
        return in.ErrorHere(fmt::format("task {} names predecessor {}, but ids go from 0 to {}", id, pred, n + 1));
      }
      edges.push_back({pred, id});
    }
  }
  if (!in.AtEnd()) {
    return in.ErrorAt(in.line(), fmt::format("expected the end of the task records (all {} read) or '#' comment "
                                             "lines, got '{}'",
                                             records, in.Peek()));
  }
  // The dummy entry and exit tasks only add zero-length tasks and zero-cost edges: leave them out.
  auto dropped = [&](int64_t id) { return (id == 0 || id == n + 1) && weight[id] == 0; };
  DagBuilder b(source);
  std::vector<uint32_t> index(records, 0);
  for (int64_t id = 0; id < records; ++id)
    if (!dropped(id)) index[id] = b.AddTask(id, weight[id]);
  for (const auto& [from, to] : edges)
    if (!dropped(from) && !dropped(to)) b.AddEdge(index[from], index[to], 0);
  return std::move(b).Build();
}

namespace {
// A first line holding one integer (the number of tasks), and a second starting with "0" (the
// dummy entry task's record).
bool LooksLikeStg(std::string_view head) {
  const size_t nl = head.find('\n');
  if (nl == std::string_view::npos) return false;
  std::string_view first = head.substr(0, nl);
  const size_t b = first.find_first_not_of(" \t\r"), e = first.find_last_not_of(" \t\r");
  if (b == std::string_view::npos || !ParseNonNegativeInt(first.substr(b, e - b + 1))) return false;
  std::string_view second = head.substr(nl + 1, head.find('\n', nl + 1) - nl - 1);
  return FirstWord(second) == "0";
}

Sniff SniffStg(const TraceProbe& probe) {
  if (HasExtension(probe.path, ".stg")) return Sniff::kSure;
  return LooksLikeStg(probe.head) ? Sniff::kPlausible : Sniff::kNo;
}
}  // namespace

constinit const TaskGraphImporter kStgImporter{kStgFormat, SniffStg, ReadStg};

}  // namespace grainscope
