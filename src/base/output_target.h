// Where grainscope may write: the one policy behind every output it makes — a trace written by
// `convert`, `replay -o` or `compensate -o`, a report, chart or page written by `-o`.
//
// grainscope never deletes or overwrites anything it did not write itself (issue 17):
//   * an output path that does not exist is created;
//   * an existing one is replaced only with --force (OutputOptions::force), and only when it is
//     what its writer recognises as its own kind of output (OutputPart): a regular file for a
//     report or a Chrome trace, a .gst file or a directory of rank-NNNNN.gst files, a complete OTF2
//     archive (anchor, .def, and a directory of .def/.evt files). A symbolic link, a device, a
//     directory holding anything else, a part of an OTF2 archive without the rest: never;
//   * an output that is, holds or lies inside one of the command's inputs is refused, with or
//     without --force (filesystem::equivalent and canonical paths, so another spelling, a hard or
//     a symbolic link of the input is caught; an input also claims the paths OutputOptions::
//     input_parts gives for it, such as an OTF2 anchor's .def file and directory).
// A refusal is an IoError naming the path (exit 3), before anything is written.
//
// Writing goes through a private staging directory next to the output (mkdtemp): the writer
// fills it, Commit moves each part into place — renameat2(RENAME_NOREPLACE) for a new part, so a
// file that appeared in the meantime is not overwritten; RENAME_EXCHANGE for a replaced one, so a
// reader finds the old part or the new one, never neither — and then deletes the replaced parts,
// only the files it recognised. A failed write removes the staging directory: only we wrote there.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/text_sink.h"

namespace grainscope {

struct OutputOptions {
  bool force = false;               // --force: replace an existing output of our own kind
  std::vector<std::string> inputs;  // the files the command reads; never written over
  // The paths an input occupies besides itself, never written over either (base/ knows no format:
  // the CLI passes format/trace_writer.h's PathsBesides, which gives an OTF2 anchor "x.otf2" its
  // x.def and x/). Unset: only the inputs themselves.
  std::vector<std::string> (*input_parts)(const std::string& input) = nullptr;
};

// One path an output occupies, and what an existing one must be for --force to replace it.
struct OutputPart {
  std::string path;
  // An existing regular file at `path` is ours when this accepts it (unset: never).
  std::function<bool(const std::string& file)> file;
  // An existing directory at `path` is ours when it holds only regular files whose names this
  // accepts (unset: never). Replacing it deletes exactly those files, then the directory.
  std::function<bool(std::string_view name)> entry;
};

// Accepts any regular file: reports, pages, Chrome traces.
bool AnyRegularFile(const std::string& file);

// An output being written. Claim checks the policy; the writer writes part i at staged(i); Commit
// moves the parts into place. Destroyed without a Commit, it removes what was staged.
class OutputTarget {
 public:
  // `what` names the kind of output in messages ("an OTF2 archive", "a .gst trace"). The parts
  // are one output in one directory, the first naming it: when some exist, all must (a complete
  // archive).
  static Result<OutputTarget> Claim(std::string what, std::vector<OutputPart> parts, const OutputOptions& options);

  OutputTarget(OutputTarget&& other) noexcept;
  OutputTarget& operator=(OutputTarget&&) = delete;
  ~OutputTarget();

  // The private directory the parts are written in, and part i's place there (same file name).
  const std::string& staging_dir() const { return staging_; }
  std::string staged(size_t i) const;

  // Moves every staged part into place, the first part last (it names the output: an OTF2
  // anchor, so that a reader that finds it finds the rest), then deletes what they replaced. On
  // failure the parts already moved are moved back.
  Status Commit();

 private:
  OutputTarget() = default;

  std::string what_;
  std::vector<OutputPart> parts_;
  std::vector<bool> existed_;  // per part: replaced (checked by Claim) rather than created
  std::string staging_;        // empty once moved from
};

// `content` as the file `path` under the policy above (a report, a page, a Chrome trace, a .gst
// file); `what` and `ours` say what an existing `path` must be to be replaced.
Status WriteOutputFile(const std::string& path, std::string_view content, const OutputOptions& options,
                       std::string_view what = "a regular file",
                       std::function<bool(const std::string& file)> ours = AnyRegularFile);

// The same for an output written while `write` produces it (base/text_sink.h), so that memory does
// not grow with its size. It is staged like every output: when a write fails or `write` returns an
// error, nothing is left at `path`.
Status WriteOutputStream(const std::string& path, const std::function<Status(TextSink& out)>& write,
                         const OutputOptions& options, std::string_view what = "a regular file",
                         std::function<bool(const std::string& file)> ours = AnyRegularFile);

}  // namespace grainscope
