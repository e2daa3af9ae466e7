#include "format/trace_writer.h"

#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "format/chrome/chrome_writer.h"
#include "format/format_names.h"
#include "format/gst/gst_writer.h"
#include "format/otf2/otf2_writer.h"
#include "model/dependencies.h"

namespace grainscope {

std::vector<std::string_view> WritableFormats() { return {"auto", kOtf2Format, kChromeFormat, kGstFormat}; }

namespace {

// An edge between two sync events was derived from them (model/thread_sync.h: lock hand-over,
// condition signal, fork, join, task creation); every writer keeps the sync events (OTF2 as its
// thread records or markers, .gst as sync records, Chrome as markers), so every reader derives the
// edge again. Edges a reader added itself (Chrome flows: GPU launch and sync) end at other events.
bool DerivedFromSyncEvents(const Trace& trace, size_t row) {
  const DependencyTable& d = trace.dependencies();
  return trace.events(d.from_location[row]).kind[d.from_event[row]] == EventKind::kSync &&
         trace.events(d.to_location[row]).kind[d.to_event[row]] == EventKind::kSync;
}

}  // namespace

// Rendezvous edges are not lost either: every reader derives them again from the messages and the
// eager limit the output keeps in its metadata (model/rendezvous.h).
std::string DependenciesNotWrittenNote(const Trace& trace, std::string_view path) {
  const DependencyTable& d = trace.dependencies();
  size_t lost = 0;
  for (size_t row = 0; row < d.size(); ++row)
    lost += d.kind[row] != DependencyKind::kRendezvous && !DerivedFromSyncEvents(trace, row);
  if (lost == 0) return "";
  return fmt::format("{} dependency edge(s) not derived from sync events (GPU launch or sync, flows) not written to {}: "
                     "no output format holds them yet",
                     lost, path);
}

Status WriteTrace(const Trace& trace, const std::string& path, std::string_view format,
                  const OutputOptions& options, std::vector<std::string>* notes) {
  if (notes != nullptr) {
    if (std::string note = DependenciesNotWrittenNote(trace, path); !note.empty()) notes->push_back(std::move(note));
  }
  if (format == "auto") {
    std::filesystem::path p(path);
    if (p.filename().empty()) p = p.parent_path();  // "out.gst/": a directory named out.gst
    const std::string extension = p.extension().string();
    if (extension == ".otf2") {
      format = kOtf2Format;
    } else if (extension == ".json") {
      format = kChromeFormat;
    } else if (extension == ".gst") {
      format = kGstFormat;
    } else {
      return InvalidArgument(fmt::format(
          "{}: cannot tell the output format from the extension '{}' (.otf2, .json or .gst); name it "
          "(known: {})",
          path, extension, fmt::join(WritableFormats(), ", ")));
    }
  }
  if (format == kOtf2Format) return WriteOtf2(trace, path, options);
  if (format == kChromeFormat) return WriteChromeJson(trace, path, options);
  if (format == kGstFormat) return WriteGst(trace, path, options);
  return InvalidArgument(fmt::format("unknown output format '{}' (known: {})", format,
                                     fmt::join(WritableFormats(), ", ")));
}

}  // namespace grainscope
