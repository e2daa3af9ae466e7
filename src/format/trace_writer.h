// One entry point for every trace format grainscope writes (the `convert` subcommand's back end):
// picks the writer by name or, with "auto", by the output path's extension.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/output_target.h"
#include "base/status.h"
#include "model/trace.h"

namespace grainscope {

// Names accepted by WriteTrace's `format` ("auto" included).
std::vector<std::string_view> WritableFormats();

// "auto" chooses by extension: .otf2 -> OTF2 (an anchor file plus its .def file and directory),
// .json -> Chrome trace-event JSON, .gst -> grainscope's own format (a file, or a directory of
// rank files for MPI traces: format/gst/gst_writer.h). Every writer leaves either the complete
// output or nothing, and replaces an existing output only as base/output_target.h allows
// (options.force, and only a trace of its own format; never one of options.inputs).
// No format is written with the trace's dependency edges yet (Trace::dependencies: lock
// hand-overs, fork/join, GPU launches and syncs): they are left out, and said so in one line
// appended to `notes` (when given; the CLI prints it as a note).
Status WriteTrace(const Trace& trace, const std::string& path, std::string_view format = "auto",
                  const OutputOptions& options = {}, std::vector<std::string>* notes = nullptr);

// That line, or an empty string when the trace has no dependency edges.
std::string DependenciesNotWrittenNote(const Trace& trace, std::string_view path);

}  // namespace grainscope
