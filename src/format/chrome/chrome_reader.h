// Reader for Chrome trace-event JSON: what ChromeJson writes, and common traces from Chrome,
// Perfetto exports and other tools (the JSON object form with "traceEvents" or a bare array).
//
// {"ph":"X","name":"grain 1","cat":"grain","ts":290000.000,"dur":20000.000,"pid":1,"tid":1}
//
// Mapping (docs/formats/chrome.md): one location per (pid, tid) track (integers or names), named
// by thread_name / process_name / process_labels metadata and ordered by the sort indices; a
// region per (name, cat) of "X" and "B"/"E" slices, its role from the category when that is a
// role name (grainscope's writer) and kFunction otherwise; async "b"/"e" slices packed into lanes
// per process; grainscope's message flows paired by (cat, id) become messages, every other flow
// chain ("s" -> "t" -> "f") dependency edges (Kineto's "ac2g": GPU launches); instant events
// markers. Times: "ts" microseconds -> ns, exactly (chrome_json.h), from the trace's origin.
// Records that cannot be read and phases not modelled are counted, never fatal.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "format/format_names.h"
#include "format/importer.h"
#include "model/trace.h"

namespace grainscope {

// `file_name` is only used in messages ("trace.json: byte 17: ...").
// `options`: this reader repairs (and counts) what it meets itself and hands the builder properly
// nested events, so --strict changes nothing here yet.
Result<Trace> ReadChromeJson(std::string_view content, std::string_view file_name, const ReadOptions& options = {});
// The same from a regular file, mapped: the pages read are handed back as the events are read.
Result<Trace> ReadChromeJsonFile(const std::string& path, const ReadOptions& options = {});

// True when the first non-blank character of `head` opens a JSON object or array.
bool LooksLikeChromeJson(std::string_view head);

// The Chrome JSON reader in the registry (format/registry.cc): a reader of paths (regular files)
// and of content (pipes), sure when LooksLikeChromeJson.
extern const Importer kChromeImporter;

}  // namespace grainscope
