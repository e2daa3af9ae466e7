// The declared list of diagnostics: every condition a reader survives, with its one name, how bad
// it is and what it means to a user (Perfetto's stats.h in spirit).
//
// A reader counts under these names only (Diagnostics::AddCount checks it in debug builds), so one
// condition has one name in every format, `info` can list them, and every command can print one
// `note:` line per kind before its result (report/notes.h).
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "model/diagnostics.h"

namespace grainscope {

enum class DiagnosticSeverity : unsigned char {
  kIgnored,   // kept out of the model, changes no result (record attributes): listed by `info` only
  kSkipped,   // records or lines the reader skipped (kinds it does not model, program output)
  kSuspect,   // kept as recorded, but inconsistent (a receive before its send: clocks disagree)
  kRepaired,  // the reader changed what it read to make it analysable (closed a region, cut a slice)
  kDataLoss,  // part of the run is missing (lost blocks, a message's other end, a truncated file)
};
std::string_view DiagnosticSeverityName(DiagnosticSeverity s);

struct DiagnosticKind {
  std::string_view name;         // snake_case, as counted: "skipped_lines"
  DiagnosticSeverity severity;
  std::string_view description;  // reads after a count: "3 <description>"
};

// Every declared kind, in a fixed order.
std::span<const DiagnosticKind> DiagnosticKinds();

// The kind named `name`, or nullptr when no reader may count it.
const DiagnosticKind* FindDiagnosticKind(std::string_view name);

// One note per counted kind that can change a result (every severity but kIgnored), in the order
// the reader first met them, one line each:
//   "3 message(s) received but never sent [receives_without_send]; first: q.gst: message 'item' ..."
std::vector<std::string> DiagnosticNotes(const Diagnostics& diagnostics);

}  // namespace grainscope
