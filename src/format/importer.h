// What a trace reader is to the rest of grainscope (Perfetto's importer shape): a name, a sniffer
// that says from a path and its first bytes how sure the reader is that it reads them, and a read.
// The registry (registry.cc) lists every reader explicitly, one line each; ReadTrace
// (trace_reader.h) picks one from it by --input-format name or, with "auto", by sniffing
// (detection.h: the first sure reader, else the first plausible one).
// docs/contributing.md, "Adding a trace reader", walks through adding one.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "base/status.h"
#include "format/read_options.h"
#include "model/trace.h"

namespace grainscope {

enum class Sniff : unsigned char {
  kNo,         // not this format
  kPlausible,  // could be (text that a looser reader would also take): a sure reader wins
  kSure,       // this format's signature (magic number, extension, directory layout)
};

// What a sniffer sees.
struct TraceProbe {
  const std::string& path;
  // The first bytes of the file, up to kHeadBytes (base/file.h); empty for a directory, a missing
  // file, and a pipe or device before it is read (it is read once: never sniffed before).
  std::string_view head;
  bool stream = false;  // a pipe or device: only a reader of content can read it
};

struct Importer {
  std::string_view name;  // format_names.h: what --input-format takes and Trace::format() says
  Sniff (*sniff)(const TraceProbe& probe);
  // One of the two reads, or both. A reader of paths opens the path itself (maps a file, reads a
  // directory): it is chosen before anything is read. A reader of content gets the file's bytes,
  // read once by ReadTrace (pipes and devices too); `file_name` is only used in messages. A reader
  // of both is given regular files by path and pipes by content.
  // `options` (read_options.h): what --strict asks.
  Result<Trace> (*read_path)(const std::string& path, const ReadOptions& options);
  Result<Trace> (*read_content)(std::string_view content, std::string_view file_name, const ReadOptions& options);
  // For a reader of paths: how a message calls its files (".gst"), when a pipe holds one.
  std::string_view file_kind = {};
  // What a person calls the format ("Chrome JSON"): the message for an input no reader takes
  // lists them all.
  std::string_view description = {};
};

// Every reader, in the order --help lists them (registry.cc).
std::span<const Importer* const> Importers();

// The reader named `name`, or nullptr.
const Importer* FindImporter(std::string_view name);

}  // namespace grainscope
