// Writer of Pipit's CSV layout (docs/formats/csv.md), the reader's (csv_reader.h) inverse:
//
//    Timestamp (ns),Event Type,Name,Thread,Process,Attributes
//    1000,Enter,MPI_Send,0,0,
//    1010,Instant,MpiSend,0,0,"{'receiver': 1, 'communicator': 'Comm 0', 'msg_tag': 7, 'msg_length': 64}"
//
// One row per event, location by location, in each location's order; Process is the location's
// process (its group, numbered in order of appearance) and Thread its place in it. Enters and
// leaves are rows of their region's name, a message's send and receive MpiSend and MpiRecv
// instants naming the peer's process, the communicator, the tag and the size; markers and thread
// synchronisations (as grainscope's sync labels, which its readers take back) instants. Not
// written, as Pipit's layout has no row for them: collective operations (their calls are written,
// as regions), dependency edges, and the locations' names and kinds. Times are nanoseconds
// from the trace's origin.
#pragma once

#include <string>

#include "base/output_target.h"
#include "base/status.h"
#include "base/text_sink.h"
#include "format/exporter.h"
#include "model/trace.h"

namespace grainscope {

void WritePipitCsv(const Trace& trace, TextSink& out);
Status WritePipitCsv(const Trace& trace, const std::string& path, const OutputOptions& options);

extern const Exporter kCsvExporter;

}  // namespace grainscope
