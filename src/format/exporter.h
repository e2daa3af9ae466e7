// What a trace writer is to the rest of grainscope, in the readers' shape (importer.h): a name, the
// extensions "auto" picks it by, a write, and what its output is. The registry (registry.cc) lists
// every writer explicitly, one line each; WriteTrace (trace_writer.h) picks one from it by --to
// name or, with "auto", by the output path's extension. docs/contributing.md, "Adding a trace
// writer", walks through adding one.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/output_target.h"
#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

struct Exporter {
  std::string_view name;  // format_names.h: what --to takes
  // "auto" picks this writer for an output path with one of these extensions (".otf2"), and
  // messages list them; no two writers share one.
  std::span<const std::string_view> extensions;
  // Writes `trace` to `path` under the output policy (base/output_target.h): complete or not there.
  Status (*write)(const Trace& trace, const std::string& path, const OutputOptions& options);
  // What its output is in messages ("an OTF2 archive"): what an existing output must be for
  // --force to replace it.
  std::string_view what;
  // What the output is for: the --help of `convert` lists it after the extension ("OTF2 for
  // Vampir and Scalasca").
  std::string_view description;
  // The paths an output at `path` (a path with one of the extensions) occupies besides `path`
  // itself, as writing it would claim them: an OTF2 anchor "x.otf2" also x.def and x/. Unset: none.
  std::vector<std::string> (*besides)(const std::string& path) = nullptr;
};

// Every writer, in the order --help lists them (registry.cc).
std::span<const Exporter* const> Exporters();

// The writer named `name`, or nullptr.
const Exporter* FindExporter(std::string_view name);

}  // namespace grainscope
