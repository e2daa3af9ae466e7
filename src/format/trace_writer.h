// One entry point for every trace format grainscope writes (the `convert` subcommand's back end):
// picks the writer from the registry (format/exporter.h) by name or, with "auto", by the output
// path's extension.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/output_target.h"
#include "base/status.h"
#include "format/exporter.h"
#include "model/trace.h"

namespace grainscope {

// Names accepted by WriteTrace's `format` ("auto" included).
std::vector<std::string_view> WritableFormats();

// "auto" chooses the writer whose extension the path has (ExporterForPath): .otf2 -> OTF2 (an
// anchor file plus its .def file and directory), .json -> Chrome trace-event JSON, .gst ->
// grainscope's own format (a file, or a directory of rank files for MPI traces:
// format/gst/gst_writer.h); another extension is an error that lists them. Every writer leaves
// either the complete output or nothing, and replaces an existing output only as
// base/output_target.h allows (options.force, and only a trace of its own format; never one of
// options.inputs).
// No format is written with the trace's dependency edges yet (Trace::dependencies: lock
// hand-overs, fork/join, GPU launches and syncs): they are left out, and said so in one line
// appended to `notes` (when given; the CLI prints it as a note).
Status WriteTrace(const Trace& trace, const std::string& path, std::string_view format = "auto",
                  const OutputOptions& options = {}, std::vector<std::string>* notes = nullptr);

// The writer "auto" picks for `path` by its extension ("out.gst/" is a directory named out.gst),
// or nullptr.
const Exporter* ExporterForPath(const std::string& path);

// The paths a trace at `path` occupies besides `path` itself, as the writer of its extension says
// (Exporter::besides: an OTF2 anchor "x.otf2" also x.def and x/); none for any other path. The CLI
// passes it as OutputOptions::input_parts, so that no output lands on a part of an input.
std::vector<std::string> PathsBesides(const std::string& path);

// "EXT: what it is for" for every writer, in registry order, joined by ", ": what `convert --help`
// says OUT's extension chooses.
std::string OutputExtensionsHelp();

// That line, or an empty string when the trace has no dependency edges.
std::string DependenciesNotWrittenNote(const Trace& trace, std::string_view path);

}  // namespace grainscope
