// Auto-detection: how "auto" chooses a reader, the one rule for both places that choose: ReadTrace
// over the trace readers (trace_reader.h), and `schedule` over the task-graph readers and then the
// trace readers (schedule/io/graph_input.h). Each hands its candidates in the order it asks them,
// and says in its own words what it found nothing for.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "format/importer.h"

namespace grainscope {

// What detection knows of a reader.
struct Candidate {
  Sniff (*sniff)(const TraceProbe& probe);
  // A reader of paths opens the path itself (maps a file, reads a directory): it is chosen before
  // anything is read. A reader of content gets the bytes. A reader of both (Chrome JSON) maps
  // regular files and gets a pipe's bytes; a reader of paths only cannot read a pipe.
  bool reads_paths = false;
  std::string_view file_kind = {};  // a reader of paths: how messages call its files (".gst")
  bool also_reads_content = false;  // a reader of paths that reads a pipe's bytes too
};

// The candidate of a trace reader.
Candidate CandidateOf(const Importer& importer);

// The rule: the first of `candidates` that is sure of `probe`, else the first that finds it
// plausible; candidates.size() when none does.
size_t MostSure(std::span<const Candidate> candidates, const TraceProbe& probe);

// What auto-detection sees of `path` before anything is read.
struct InputHead {
  // A regular file's first kHeadBytes (base/file.h); empty for a pipe or device (it is read once,
  // never sniffed ahead of its reader: ReadFile's head check sees its first bytes), a directory and
  // a file that cannot be read.
  std::string head;
  bool stream = false;  // a pipe or device
};
InputHead ReadInputHead(const std::string& path);

// What differs between the callers: their messages, and one choice.
struct DetectionRules {
  std::string_view expected;  // "a trace": "x: the file is empty, expected a trace"
  // The error for first bytes no candidate takes.
  Status (*nothing_takes)(const std::string& path, std::string_view head) = nullptr;
  // The error for a directory no reader of paths claims; unset: ReadFile's ("is a directory").
  Status (*not_a_directory)(const std::string& path) = nullptr;
  // True: a reader of paths is chosen before anything is read only for a directory or a file with
  // bytes, so that a missing, unreadable or empty file gets ReadFile's message or the empty-file
  // one whatever its name (`schedule`). False: from the name too (ReadTrace: the reader's message).
  bool paths_need_bytes = false;
};

struct Detected {
  size_t chosen = 0;    // the index of the reader in the candidates
  std::string content;  // the file's bytes, for a reader of content; empty for a reader of paths
};

// "auto" for `path`: a reader of paths when the most sure candidate of the name and a regular
// file's first bytes reads paths; else the file is read once (a pipe too, bounded: base/file.h)
// and the most sure candidate of its first bytes, checked before the rest is read so that what no
// candidate takes fails at once, even when it never ends (/dev/zero). A pipe whose first bytes
// only a reader of paths takes is refused (StreamNeedsAFile), an empty file too.
Result<Detected> Detect(const std::string& path, std::span<const Candidate> candidates, const DetectionRules& rules);

// The error for a pipe or device whose first bytes only a reader of paths of `file_kind` reads.
Status StreamNeedsAFile(const std::string& path, std::string_view file_kind);

}  // namespace grainscope
