#include "format/trace_writer.h"

#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "base/progress.h"
#include "format/exporter.h"
#include "format/format_names.h"
#include "model/dependencies.h"

namespace grainscope {

std::vector<std::string_view> WritableFormats() {
  std::vector<std::string_view> names = {"auto"};
  for (const Exporter* writer : Exporters()) names.push_back(writer->name);
  return names;
}

namespace {

// The extension "auto" goes by: "out.gst/" is a directory named out.gst.
std::string OutputExtension(const std::string& path) {
  std::filesystem::path p(path);
  if (p.filename().empty()) p = p.parent_path();
  return p.extension().string();
}

const Exporter* ExporterForExtension(std::string_view extension) {
  for (const Exporter* writer : Exporters()) {
    for (std::string_view e : writer->extensions)
      if (e == extension) return writer;
  }
  return nullptr;
}

// ".otf2, .json or .gst": every extension "auto" knows, in registry order.
std::string ExtensionList() {
  std::vector<std::string_view> all;
  for (const Exporter* writer : Exporters()) all.insert(all.end(), writer->extensions.begin(), writer->extensions.end());
  if (all.size() < 2) return fmt::format("{}", fmt::join(all, ""));
  return fmt::format("{} or {}", fmt::join(all.begin(), all.end() - 1, ", "), all.back());
}

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

namespace {

// Instance ids (Trace::InstanceId: a grain site's executions) are .gst's grain records; another
// format writes the instances as plain calls of their region.
std::string InstancesNotWrittenNote(const Trace& trace, const Exporter* writer, std::string_view path) {
  if (trace.instances().size() == 0 || writer == nullptr || writer->name == kGstFormat) return "";
  return fmt::format("{} region instance id(s) (grains numbered per execution) not written to {}: only .gst holds "
                     "them; the instances are written as plain calls of their region",
                     trace.instances().size(), path);
}

}  // namespace

Status WriteTrace(const Trace& trace, const std::string& path, std::string_view format,
                  const OutputOptions& options, std::vector<std::string>* notes) {
  const Exporter* writer = format == "auto" ? ExporterForPath(path) : FindExporter(format);
  if (notes != nullptr) {
    for (std::string note : {DependenciesNotWrittenNote(trace, path), InstancesNotWrittenNote(trace, writer, path)})
      if (!note.empty()) notes->push_back(std::move(note));
  }
  // convert, replay -o, compensate -o: a large trace takes seconds to write, which the bar names.
  progress::Begin("writing", 0);
  if (writer != nullptr) return writer->write(trace, path, options);
  if (format == "auto") {
    return InvalidArgument(fmt::format("{}: cannot tell the output format from the extension '{}' ({}); name it "
                                       "(known: {})",
                                       path, OutputExtension(path), ExtensionList(), fmt::join(WritableFormats(), ", ")));
  }
  return InvalidArgument(fmt::format("unknown output format '{}' (known: {})", format,
                                     fmt::join(WritableFormats(), ", ")));
}

const Exporter* ExporterForPath(const std::string& path) { return ExporterForExtension(OutputExtension(path)); }

std::vector<std::string> PathsBesides(const std::string& path) {
  // The path as named: "x.otf2/" is a directory, not an anchor.
  const Exporter* writer = ExporterForExtension(std::filesystem::path(path).extension().string());
  if (writer == nullptr || writer->besides == nullptr) return {};
  return writer->besides(path);
}

std::string OutputExtensionsHelp() {
  std::vector<std::string> parts;
  for (const Exporter* writer : Exporters())
    parts.push_back(fmt::format("{}: {}", fmt::join(writer->extensions, "/"), writer->description));
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace grainscope
