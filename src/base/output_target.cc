#include "base/output_target.h"

#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <utility>

#include <fmt/format.h>

#include "base/file.h"

namespace grainscope {
namespace {

namespace fs = std::filesystem;

std::string ErrnoText(int e) { return std::strerror(e); }

constexpr std::string_view kNever = "not replaced, even with --force";

// "out/" -> "out"; ".", ".." and "dir/." -> the directory's own name, so that its parent holds it.
fs::path Normalized(const std::string& path) {
  fs::path p(path);
  while (p.has_relative_path() && p.filename().empty()) p = p.parent_path();
  const std::string name = p.filename().string();
  if (name.empty() || name == "." || name == "..") {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    if (!ec) return c;
  }
  return p;
}

// True when `inner` is `outer` or lies below it (both canonical).
bool IsUnder(const fs::path& inner, const fs::path& outer) {
  auto i = inner.begin();
  for (auto o = outer.begin(); o != outer.end(); ++o, ++i) {
    if (o->empty()) continue;  // a trailing separator
    if (i == inner.end() || *i != *o) return false;
  }
  return true;
}

// The paths an input occupies: itself and what options.input_parts adds (an OTF2 anchor's .def file
// and directory).
std::vector<fs::path> InputPaths(const std::string& input, const OutputOptions& options) {
  std::vector<fs::path> out{fs::path(input)};
  if (options.input_parts != nullptr) {
    for (const std::string& part : options.input_parts(input)) out.emplace_back(part);
  }
  return out;
}

// `shown` starts the message: "out: " for the output itself, or, for another part of it (an OTF2
// archive's .def file and directory), what writing the output would also write.
Status CheckNotAnInput(const std::string& shown, const fs::path& part, const OutputOptions& options) {
  std::error_code ec;
  const fs::path canonical_part = fs::weakly_canonical(part, ec);
  for (const std::string& input : options.inputs) {
    for (const fs::path& in : InputPaths(input, options)) {
      if (!fs::exists(in, ec)) continue;
      if (fs::equivalent(part, in, ec)) {
        return IoError(fmt::format("{}is {}the input '{}'; {}", shown, in == fs::path(input) ? "" : "part of ", input,
                                   kNever));
      }
      const fs::path canonical_in = fs::canonical(in, ec);
      if (ec || canonical_part.empty()) continue;
      if (IsUnder(canonical_in, canonical_part)) {
        return IoError(fmt::format("{}holds the input '{}'; {}", shown, input, kNever));
      }
      if (fs::is_directory(canonical_in, ec) && IsUnder(canonical_part, canonical_in)) {
        return IoError(fmt::format("{}lies inside the input '{}'; {}", shown, input, kNever));
      }
    }
  }
  return OkStatus();
}

// Why the existing `path` is not what `part` may replace, or "" when it is.
std::string NotOurs(const OutputPart& part, const fs::path& path, const struct stat& st, std::string_view what) {
  if (S_ISLNK(st.st_mode)) return fmt::format("is a symbolic link, not {}", what);
  if (S_ISREG(st.st_mode)) {
    return part.file && part.file(path.string()) ? "" : fmt::format("exists and is not {}", what);
  }
  if (!S_ISDIR(st.st_mode)) return fmt::format("is not a regular file, so not {}", what);
  if (!part.entry) return fmt::format("is a directory, not {}", what);
  std::error_code ec;
  std::string stranger;  // the first in name order, so that the message does not depend on the file system
  for (const fs::directory_entry& e : fs::directory_iterator(path, ec)) {
    const std::string name = e.path().filename().string();
    if ((!e.is_regular_file(ec) || e.is_symlink(ec) || !part.entry(name)) && (stranger.empty() || name < stranger)) {
      stranger = name;
    }
  }
  if (ec) return fmt::format("is a directory that cannot be listed: {}", ec.message());
  if (!stranger.empty()) return fmt::format("is a directory holding '{}', which is not part of {}", stranger, what);
  return "";
}

// Deletes a replaced part, now at `old`: only what `part` recognises. False when anything is left.
bool RemoveReplaced(const OutputPart& part, const fs::path& old) {
  struct stat st {};
  if (::lstat(old.c_str(), &st) != 0) return errno == ENOENT;
  if (S_ISREG(st.st_mode)) return part.file && part.file(old.string()) && ::unlink(old.c_str()) == 0;
  if (!S_ISDIR(st.st_mode) || !part.entry) return false;
  std::error_code ec;
  std::vector<fs::path> files;
  for (const fs::directory_entry& e : fs::directory_iterator(old, ec)) {
    if (e.is_regular_file(ec) && !e.is_symlink(ec) && part.entry(e.path().filename().string())) {
      files.push_back(e.path());
    }
  }
  for (const fs::path& f : files) ::unlink(f.c_str());
  return ::rmdir(old.c_str()) == 0;
}

int Rename2(const fs::path& from, const fs::path& to, unsigned flags) {
  return ::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), flags) == 0 ? 0 : errno;
}

// Moves `from` to `to`, which must not exist.
int MoveNew(const fs::path& from, const fs::path& to) {
  const int e = Rename2(from, to, RENAME_NOREPLACE);
  if (e != EINVAL && e != ENOSYS) return e;
  // A file system without renameat2 flags: link() refuses an existing name; for a directory, a
  // check and a rename (rename fails on a non-empty directory anyway).
  struct stat st {};
  if (::lstat(from.c_str(), &st) != 0) return errno;
  if (!S_ISDIR(st.st_mode)) {
    if (::link(from.c_str(), to.c_str()) != 0) return errno;
    ::unlink(from.c_str());
    return 0;
  }
  if (::lstat(to.c_str(), &st) == 0) return EEXIST;
  return ::rename(from.c_str(), to.c_str()) == 0 ? 0 : errno;
}

// Swaps `from` into `to`; the old `to` ends at `old` (== `from` when the kernel swaps in one step).
int Exchange(const fs::path& from, const fs::path& to, const fs::path& aside, fs::path& old) {
  const int e = Rename2(from, to, RENAME_EXCHANGE);
  if (e == 0) {
    old = from;
    return 0;
  }
  if (e != EINVAL && e != ENOSYS) return e;
  if (::rename(to.c_str(), aside.c_str()) != 0) return errno;
  if (::rename(from.c_str(), to.c_str()) != 0) {
    const int why = errno;
    ::rename(aside.c_str(), to.c_str());
    return why;
  }
  old = aside;
  return 0;
}

}  // namespace

bool AnyRegularFile(const std::string&) { return true; }

Result<OutputTarget> OutputTarget::Claim(std::string what, std::vector<OutputPart> parts, const OutputOptions& options) {
  if (parts.empty()) return Internal("an output without parts");
  std::vector<fs::path> paths;
  for (const OutputPart& p : parts) paths.push_back(Normalized(p.path));
  const fs::path dir = paths[0].parent_path();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (paths[i].parent_path() != dir) return Internal(fmt::format("{}: parts of one output in two directories", parts[i].path));
    const std::string shown = i == 0 ? parts[0].path + ": "
                                     : fmt::format("{}: writing it also writes '{}' (as {} does), which ", parts[0].path,
                                                   parts[i].path, what);
    GS_RETURN_IF_ERROR(CheckNotAnInput(shown, paths[i], options));
  }
  // What is there already.
  std::vector<bool> existed(parts.size(), false);
  size_t first_existing = parts.size(), first_missing = parts.size();
  for (size_t i = 0; i < parts.size(); ++i) {
    struct stat st {};
    existed[i] = ::lstat(paths[i].c_str(), &st) == 0;
    if (!existed[i]) {
      if (first_missing == parts.size()) first_missing = i;
      continue;
    }
    if (first_existing == parts.size()) first_existing = i;
    const std::string why = NotOurs(parts[i], paths[i], st, what);
    if (!why.empty()) return IoError(fmt::format("{}: {}; {}", parts[i].path, why, kNever));
  }
  if (first_existing < parts.size() && first_missing < parts.size()) {
    return IoError(fmt::format("{}: exists but {} does not, so what is there is not whole ({}); {}", parts[first_existing].path,
                               parts[first_missing].path, what, kNever));
  }
  if (first_existing < parts.size() && !options.force) {
    return IoError(fmt::format("{}: exists; --force replaces it", parts[first_existing].path));
  }
  // The private staging directory, next to the output so that the moves are renames.
  const std::string name = paths[0].filename().string();
  std::string templ = ((dir.empty() ? fs::path(".") : dir) / fmt::format(".{}.grainscope-XXXXXX", name)).string();
  if (::mkdtemp(templ.data()) == nullptr) {
    return IoError(fmt::format("{}: cannot create: {}", parts[0].path, ErrnoText(errno)));
  }
  OutputTarget t;
  t.what_ = std::move(what);
  t.parts_ = std::move(parts);
  for (size_t i = 0; i < paths.size(); ++i) t.parts_[i].path = paths[i].string();
  t.existed_ = std::move(existed);
  t.staging_ = std::move(templ);
  return t;
}

OutputTarget::OutputTarget(OutputTarget&& other) noexcept
    : what_(std::move(other.what_)),
      parts_(std::move(other.parts_)),
      existed_(std::move(other.existed_)),
      staging_(std::exchange(other.staging_, std::string())) {}

OutputTarget::~OutputTarget() {
  if (staging_.empty()) return;
  std::error_code ec;
  fs::remove_all(staging_, ec);  // only what the writer staged: Commit empties it of anything else
}

std::string OutputTarget::staged(size_t i) const {
  return (fs::path(staging_) / fs::path(parts_[i].path).filename()).string();
}

Status OutputTarget::Commit() {
  struct Done {
    size_t part;
    fs::path old;  // where the replaced part is now; empty when the part was new
  };
  std::vector<Done> done;
  Status failed;
  for (size_t i = parts_.size(); i-- > 0 && failed.ok();) {
    const fs::path from = staged(i), to = parts_[i].path;
    const fs::path aside = fs::path(staging_) / (".replaced-" + from.filename().string());
    fs::path old;
    int e = existed_[i] ? Exchange(from, to, aside, old) : MoveNew(from, to);
    if (e == ENOENT && existed_[i]) e = MoveNew(from, to);  // the old one went away meanwhile
    if (e == 0) {
      done.push_back({i, old});
      continue;
    }
    failed = IoError(e == EEXIST ? fmt::format("{}: appeared while it was written; {}", parts_[i].path, kNever)
                                 : fmt::format("{}: cannot move the written {} into place: {}", parts_[i].path, what_,
                                               ErrnoText(e)));
  }
  if (!failed.ok()) {
    // Back to how it was: new parts out again, replaced ones back in.
    bool restored = true;
    for (size_t k = done.size(); k-- > 0;) {
      const fs::path from = staged(done[k].part), to = parts_[done[k].part].path;
      if (done[k].old.empty()) {
        restored &= ::rename(to.c_str(), from.c_str()) == 0;
      } else if (done[k].old == from) {
        restored &= Rename2(from, to, RENAME_EXCHANGE) == 0;
      } else {
        restored &= ::rename(to.c_str(), from.c_str()) == 0 && ::rename(done[k].old.c_str(), to.c_str()) == 0;
      }
    }
    if (!restored) {  // a replaced part may still be in the staging directory: never delete it
      return IoError(fmt::format("{} (and could not put everything back: see {})", failed.message(),
                                 std::exchange(staging_, std::string())));
    }
    return failed;
  }
  for (const Done& d : done) {
    if (d.old.empty() || RemoveReplaced(parts_[d.part], d.old)) continue;
    // Something that was not ours appeared in the replaced part meanwhile: keep all of it.
    const std::string kept = std::exchange(staging_, std::string());
    return IoError(fmt::format("{}: replaced, but the old one held more than {} and is kept in {}", parts_[d.part].path,
                               what_, kept));
  }
  return OkStatus();
}

Status WriteOutputFile(const std::string& path, std::string_view content, const OutputOptions& options,
                       std::string_view what, std::function<bool(const std::string& file)> ours) {
  auto write = [&](TextSink& out) {
    out.Append(content);
    return OkStatus();
  };
  return WriteOutputStream(path, write, options, what, std::move(ours));
}

Status WriteOutputStream(const std::string& path, const std::function<Status(TextSink& out)>& write,
                         const OutputOptions& options, std::string_view what,
                         std::function<bool(const std::string& file)> ours) {
  GS_ASSIGN_OR_RETURN(OutputTarget target,
                      OutputTarget::Claim(std::string(what), {OutputPart{path, std::move(ours), nullptr}}, options));
  const std::string staged = target.staged(0);
  const int fd = ::open(staged.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return IoError(fmt::format("{}: cannot create: {}", staged, std::strerror(errno)));
  TextSink sink(fd, path);
  Status status = write(sink);
  if (status.ok()) status = sink.Close();
  if (::close(fd) != 0 && status.ok()) status = IoError(fmt::format("{}: write failed: {}", path, std::strerror(errno)));
  GS_RETURN_IF_ERROR(status);  // the target's destructor removes the staged file
  return target.Commit();
}

}  // namespace grainscope
