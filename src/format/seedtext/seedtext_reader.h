// Reader for the seed's trace text format (Yadav 1989, chapter 3 and appendix B).
//
//    start      <processor_id> <grain_id> <time>
//    stop       <processor_id> <grain_id> <time>
//    sendBegin  <structure_name> <grain_id> <time>
//    sendEnd    <structure_name> <grain_id> <time>
//    recvBegin  <structure_name> <grain_id> <time>
//    recvEnd    <structure_name> <grain_id> <time>
//
// Times are milliseconds since initialize_clock() (our extension: up to 6 fractional digits). A
// structure name is everything between the keyword and the last two fields, so it may hold
// spaces, with the escapes libgrainscope's seed routines write (\\ \t \n \r \xHH, "" for the
// empty name): what they print, this reads back.
// Lines whose first word is not one of the six keywords are the program's own output: skipped and
// counted ("skipped_lines"). docs/formats/seedtext.md lists every error and warning.
//
// Mapping onto the Trace model: one location per processor id ("processor <id>"), one region per
// grain id ("grain <id>", role kGrain) entered at start and left at stop. An arc's send is a
// "send" region (sendBegin..sendEnd) with the message leaving at sendBegin; its receive a
// "receive" region (recvBegin..recvEnd) with the message arriving at recvEnd. Arcs carry no
// processor: they run on the processor of the grain they name.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"
#include "format/format_names.h"
#include "format/importer.h"
#include "model/trace.h"

namespace grainscope {

// `file_name` is only used in messages ("trace.txt:7: ...").
// `options`: this reader repairs (and counts) what it meets itself and hands the builder properly
// nested events, so --strict changes nothing here yet.
Result<Trace> ReadSeedText(std::string_view content, std::string_view file_name, const ReadOptions& options = {});

// True when the first trace-like line of `head` starts with one of the six keywords.
bool LooksLikeSeedText(std::string_view head);

// The seed text reader in the registry (format/registry.cc): a reader of content, plausible when
// LooksLikeSeedText.
extern const Importer kSeedTextImporter;

}  // namespace grainscope
