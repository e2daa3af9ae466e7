#include "format/hpctoolkit/hpctoolkit_reader.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "format/format_names.h"
#include "format/hpctoolkit/hpctoolkit_file.h"
#include "model/region_roles.h"
#include "model/trace_builder.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;
using hpctoolkit::DbFile;

// The largest timestamp read (2^62 ns, the year 2116): beyond, a time is damage, and differences
// of two times cannot overflow.
constexpr uint64_t kMaxTime = uint64_t{1} << 62;

// A node of the calling context tree as the trace shows it: an entry point, a function or a loop.
struct Node {
  int32_t parent;  // -1: a root
  RegionId region;
};

// A thread's identity from profile.db: its identifier tuple's (kind name, id) pairs.
struct Identity {
  std::vector<std::pair<std::string, uint64_t>> ids;
  int64_t Id(std::string_view kind) const {
    for (const auto& [k, v] : ids)
      if (k == kind) return static_cast<int64_t>(v);
    return -1;
  }
};

class HpctoolkitReader {
 public:
  HpctoolkitReader(const std::string& dir, const ReadOptions& options) : dir_(dir), b_(std::string(kHpctoolkitFormat)) {
    b_.SetRepairNesting(!options.strict);
  }

  Result<Trace> Read() {
    GS_ASSIGN_OR_RETURN(DbFile meta, DbFile::Open((fs::path(dir_) / "meta.db").string(), "meta", "_meta.db"));
    GS_ASSIGN_OR_RETURN(DbFile profile, DbFile::Open((fs::path(dir_) / "profile.db").string(), "prof", "_prof.db"));
    GS_ASSIGN_OR_RETURN(DbFile trace, DbFile::Open((fs::path(dir_) / "trace.db").string(), "trce", "trace.db"));
    GS_RETURN_IF_ERROR(ReadKindNames(meta));
    GS_RETURN_IF_ERROR(ReadContextTree(meta));
    GS_RETURN_IF_ERROR(ReadIdentities(profile));
    GS_RETURN_IF_ERROR(ReadTraces(trace));
    if (unknown_contexts_ > 0)
      b_.diagnostics().AddCount(Diag::kInvalidRecords, unknown_contexts_, first_unknown_);
    return b_.Finish();
  }

 private:
  Status ReadKindNames(const DbFile& meta) {
    uint64_t p = 0, size = 0, names = 0;
    uint8_t n = 0;
    if (!meta.Section(1, &p, &size) || !meta.Get(p, &names) || !meta.Get(p + 8, &n)) return meta.Damaged("the identifier names", p);
    for (uint8_t k = 0; k < n; ++k) {
      uint64_t at = 0;
      std::string_view name;
      if (!meta.Get(names + 8u * k, &at) || !meta.String(at, &name)) return meta.Damaged("an identifier name", names + 8u * k);
      std::string lower(name);
      for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      kind_names_.push_back(lower);
    }
    return OkStatus();
  }

  Status ReadContextTree(const DbFile& meta);
  Status ReadContext(const DbFile& meta, uint64_t at, int32_t parent, std::vector<std::tuple<uint64_t, uint64_t, int32_t>>& todo,
                     uint64_t* size);
  std::string ContextName(const DbFile& meta, uint64_t at, uint8_t flags, uint8_t lexical);
  Status ReadIdentities(const DbFile& profile);
  Status ReadTraces(const DbFile& trace);
  Status ReadTraceLine(const DbFile& trace, uint64_t header, TimeNs end);

  // The region named `name`; its role from the call it names without HPCToolkit's module suffix
  // and MPI's profiling prefix ("PMPI_Send [libmpi.so.12]" is MPI_Send's).
  RegionId Region(const std::string& name) {
    auto [it, inserted] = regions_.try_emplace(name, RegionId());
    if (!inserted) return it->second;
    std::string_view call = name;
    if (const size_t bracket = call.find(" ["); bracket != std::string_view::npos && call.ends_with(']')) call = call.substr(0, bracket);
    if (call.starts_with("PMPI_")) call.remove_prefix(1);
    const std::optional<CallRole> known = KnownCallRole(call);
    it->second = b_.AddRegion(name, known ? known->role : RegionRole::kFunction, static_cast<int64_t>(regions_.size() - 1));
    return it->second;
  }

  std::string dir_;
  TraceBuilder b_;
  std::vector<std::string> kind_names_;
  std::vector<Node> nodes_;
  std::unordered_map<uint32_t, int32_t> node_of_context_;  // ctxId -> node (-1: none)
  std::unordered_map<std::string, RegionId> regions_;
  std::vector<Identity> identities_;  // per profile index
  std::map<int64_t, uint32_t> rank_groups_;  // rank -> its first location
  uint64_t ids_read_ = 0, samples_read_ = 0;
  uint64_t unknown_contexts_ = 0;
  std::string first_unknown_;
};

// The entry points, then every context below them, iteratively (a damaged file cannot recurse
// the reader into a stack overflow, nor loop: each context is read once).
Status HpctoolkitReader::ReadContextTree(const DbFile& meta) {
  uint64_t p = 0, size = 0, entries = 0;
  uint16_t n = 0;
  uint8_t stride = 0;
  // Each count times its stride must fit the file: a damaged count cannot make the reader allocate
  // or loop beyond what the file could hold.
  if (!meta.Section(3, &p, &size) || !meta.Get(p, &entries) || !meta.Get(p + 8, &n) || !meta.Get(p + 10, &stride) ||
      stride < 0x20 || static_cast<uint64_t>(n) * stride > meta.size()) {
    return meta.Damaged("the context tree", p);
  }
  std::vector<std::tuple<uint64_t, uint64_t, int32_t>> todo;  // (children array, its size, parent node)
  for (uint16_t i = 0; i < n; ++i) {
    const uint64_t at = entries + static_cast<uint64_t>(i) * stride;
    uint64_t children_size = 0, children = 0, name_at = 0;
    uint32_t id = 0;
    std::string_view name;
    if (!meta.Get(at, &children_size) || !meta.Get(at + 8, &children) || !meta.Get(at + 0x10, &id) ||
        !meta.Get(at + 0x18, &name_at) || !meta.String(name_at, &name)) {
      return meta.Damaged("an entry point", at);
    }
    nodes_.push_back({-1, Region(std::string(name))});
    node_of_context_[id] = static_cast<int32_t>(nodes_.size() - 1);
    todo.emplace_back(children, children_size, static_cast<int32_t>(nodes_.size() - 1));
  }
  const uint64_t limit = meta.size() / 0x20 + 1;  // no file holds more contexts than this
  uint64_t read = 0;
  while (!todo.empty()) {
    auto [array, bytes, parent] = todo.back();
    todo.pop_back();
    for (uint64_t offset = 0; array != 0 && offset < bytes;) {
      if (++read > limit) return meta.Damaged("a context tree that refers back to itself", array);
      uint64_t ctx_size = 0;
      GS_RETURN_IF_ERROR(ReadContext(meta, array + offset, parent, todo, &ctx_size));
      offset += ctx_size;
    }
  }
  return OkStatus();
}

// One context at `at`: a node when it is a function or a loop (else its parent's), its children
// queued; `*size` is its size in bytes.
Status HpctoolkitReader::ReadContext(const DbFile& meta, uint64_t at, int32_t parent,
                                     std::vector<std::tuple<uint64_t, uint64_t, int32_t>>& todo, uint64_t* size) {
  uint64_t children_size = 0, children = 0;
  uint32_t id = 0;
  uint8_t flags = 0, lexical = 0, words = 0;
  if (!meta.Get(at, &children_size) || !meta.Get(at + 8, &children) || !meta.Get(at + 0x10, &id) ||
      !meta.Get(at + 0x14, &flags) || !meta.Get(at + 0x16, &lexical) || !meta.Get(at + 0x17, &words)) {
    return meta.Damaged("a context", at);
  }
  *size = 0x20 + 8u * words;
  int32_t node = parent;
  if (lexical == 0 || lexical == 1) {
    nodes_.push_back({parent, Region(ContextName(meta, at, flags, lexical))});
    node = static_cast<int32_t>(nodes_.size() - 1);
  }
  node_of_context_[id] = node;
  if (children != 0 && children_size > 0) todo.emplace_back(children, children_size, node);
  return OkStatus();
}

// A function's name, "<unknown function>" for an anonymous one; a loop's source line.
std::string HpctoolkitReader::ContextName(const DbFile& meta, uint64_t at, uint8_t flags, uint8_t lexical) {
  const uint64_t flex = at + 0x20;
  uint64_t word = 0;
  uint64_t function = 0, file = 0;
  uint32_t line = 0;
  if (flags & 1) meta.Get(flex + 8 * word++, &function);
  if (flags & 2) {
    meta.Get(flex + 8 * word++, &file);
    meta.Get(flex + 8 * word++, &line);
  }
  std::string_view name;
  uint64_t name_at = 0;
  if (lexical == 1) {
    uint64_t path_at = 0;
    std::string_view path;
    if (file != 0 && meta.Get(file + 8, &path_at) && meta.String(path_at, &path))
      return fmt::format("loop at {}:{}", fs::path(path).filename().string(), line);
    return "loop";
  }
  if (function != 0 && meta.Get(function, &name_at) && name_at != 0 && meta.String(name_at, &name)) return std::string(name);
  return "<unknown function>";
}

// Each profile's identifier tuple, by profile index.
Status HpctoolkitReader::ReadIdentities(const DbFile& profile) {
  uint64_t p = 0, size = 0, profiles = 0;
  uint32_t n = 0;
  uint8_t stride = 0;
  if (!profile.Section(0, &p, &size) || !profile.Get(p, &profiles) || !profile.Get(p + 8, &n) || !profile.Get(p + 12, &stride) ||
      stride < 0x28 || static_cast<uint64_t>(n) * stride > profile.size()) {
    return profile.Damaged("the profile infos", p);
  }
  identities_.resize(n);
  for (uint32_t i = 0; i < n; ++i) {
    uint64_t tuple = 0;
    uint16_t ids = 0;
    if (!profile.Get(profiles + static_cast<uint64_t>(i) * stride + 0x20, &tuple)) return profile.Damaged("a profile info", profiles);
    if (tuple == 0) continue;  // the summary profile
    if (!profile.Get(tuple, &ids)) return profile.Damaged("an identifier tuple", tuple);
    // Tuples shared by profiles are read once each time: bounded by what the file could hold.
    if ((ids_read_ += ids) > profile.size() / 16) return profile.Damaged("identifier tuples that overlap", tuple);
    for (uint16_t k = 0; k < ids; ++k) {
      uint8_t kind = 0;
      uint64_t physical = 0;
      if (!profile.Get(tuple + 8 + 16u * k, &kind) || !profile.Get(tuple + 8 + 16u * k + 8, &physical))
        return profile.Damaged("an identifier", tuple + 8 + 16u * k);
      identities_[i].ids.emplace_back(kind < kind_names_.size() ? kind_names_[kind] : fmt::format("kind {}", kind), physical);
    }
  }
  return OkStatus();
}

Status HpctoolkitReader::ReadTraces(const DbFile& trace) {
  uint64_t p = 0, size = 0, headers = 0, first = 0, last = 0;
  uint32_t n = 0;
  uint8_t stride = 0;
  if (!trace.Section(0, &p, &size) || !trace.Get(p, &headers) || !trace.Get(p + 8, &n) || !trace.Get(p + 12, &stride) ||
      !trace.Get(p + 0x10, &first) || !trace.Get(p + 0x18, &last) || stride < 0x18 || first > kMaxTime || last > kMaxTime ||
      static_cast<uint64_t>(n) * stride > trace.size()) {
    return trace.Damaged("the trace headers", p);
  }
  b_.SetOrigin(static_cast<TimeNs>(first));
  // Lines in (rank, thread) order.
  std::vector<std::pair<std::pair<int64_t, int64_t>, uint64_t>> lines;
  for (uint32_t i = 0; i < n; ++i) {
    const uint64_t at = headers + static_cast<uint64_t>(i) * stride;
    uint32_t index = 0;
    if (!trace.Get(at, &index) || index >= identities_.size()) return trace.Damaged("a trace header's profile", at);
    lines.push_back({{identities_[index].Id("rank"), identities_[index].Id("thread")}, at});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const auto& a, const auto& x) { return a.first < x.first; });
  for (const auto& line : lines) GS_RETURN_IF_ERROR(ReadTraceLine(trace, line.second, static_cast<TimeNs>(last)));
  return OkStatus();
}

// One trace line: a location, its samples as the regions each enters and leaves.
Status HpctoolkitReader::ReadTraceLine(const DbFile& trace, uint64_t header, TimeNs end) {
  uint32_t index = 0;
  uint64_t start = 0, stop = 0;
  if (!trace.Get(header, &index) || !trace.Get(header + 8, &start) || !trace.Get(header + 0x10, &stop) || stop < start ||
      stop > trace.size()) {
    return trace.Damaged("a trace line", header);
  }
  // Lines sharing their samples would multiply them: all lines together hold at most the file.
  if ((samples_read_ += (stop - start) / 12) > trace.size() / 12) return trace.Damaged("trace lines that overlap", header);
  const Identity& who = identities_[index];
  std::string name;
  for (const auto& [kind, id] : who.ids)
    if (kind != "node") name += fmt::format("{}{} {}", name.empty() ? "" : " ", kind, id);
  const int64_t rank = who.Id("rank");
  const LocationId loc = b_.AddLocation(name.empty() ? fmt::format("profile {}", index) : name, LocationKind::kThread,
                                        std::max<int64_t>(who.Id("thread"), 0));
  b_.SetLocationGroup(loc, rank_groups_.try_emplace(rank, loc.value).first->second);
  std::vector<int32_t> open, path;  // nodes entered, root first; the next sample's path
  uint32_t last_context = UINT32_MAX;
  TimeNs t = 0;
  for (uint64_t at = start; at + 12 <= stop; at += 12) {
    uint64_t time = 0;
    uint32_t context = 0;
    trace.Get(at, &time);
    trace.Get(at + 8, &context);
    if (time > kMaxTime) {  // nanoseconds since the epoch, past the year 2116: damaged
      if (unknown_contexts_++ == 0) first_unknown_ = fmt::format("{}: a sample of {} at {} ns, past any clock", trace.path(), name, time);
      continue;
    }
    t = static_cast<TimeNs>(time);  // one earlier than the last is the builder's to repair and count
    if (context == last_context) continue;
    last_context = context;
    path.clear();
    if (context != 0) {
      const auto it = node_of_context_.find(context);
      if (it == node_of_context_.end()) {
        if (unknown_contexts_++ == 0) first_unknown_ = fmt::format("{}: a sample of {} in context {}, which meta.db does not list", trace.path(), name, context);
        continue;
      }
      for (int32_t n = it->second; n >= 0 && path.size() <= nodes_.size(); n = nodes_[n].parent) path.push_back(n);
      std::reverse(path.begin(), path.end());
    }
    size_t common = 0;
    while (common < open.size() && common < path.size() && open[common] == path[common]) ++common;
    for (; open.size() > common; open.pop_back()) b_.Leave(loc, t, nodes_[open.back()].region);
    for (size_t k = common; k < path.size(); ++k, open.push_back(path[k - 1])) b_.Enter(loc, t, nodes_[path[k]].region);
  }
  for (t = std::max(t, end); !open.empty(); open.pop_back()) b_.Leave(loc, t, nodes_[open.back()].region);
  return OkStatus();
}

Sniff SniffHpctoolkit(const TraceProbe& probe) {
  return !probe.stream && LooksLikeHpctoolkit(probe.path) ? Sniff::kSure : Sniff::kNo;
}

}  // namespace

Result<Trace> ReadHpctoolkit(const std::string& path, const ReadOptions& options) {
  return HpctoolkitReader(path, options).Read();
}

bool LooksLikeHpctoolkit(const std::string& path) {
  std::error_code ec;
  return fs::is_directory(path, ec) && fs::exists(fs::path(path) / "meta.db", ec) && fs::exists(fs::path(path) / "trace.db", ec);
}

constinit const Importer kHpctoolkitImporter{kHpctoolkitFormat, SniffHpctoolkit, ReadHpctoolkit, nullptr, "HPCToolkit",
                                             "HPCToolkit database"};

}  // namespace grainscope
