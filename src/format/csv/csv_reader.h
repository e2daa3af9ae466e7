// Reader for Pipit's CSV traces (docs/formats/csv.md): one event per row, under a header that
// names the columns, in any order:
//
//    Timestamp (ns),Event Type,Name,Thread,Process,Attributes
//    193668225.07,Enter,MPI_Send,0,0,{'region': 'Region 193'}
//    193672584.56,Instant,MpiSend,0,0,"{'receiver': 1, 'communicator': 'Comm 1', 'msg_tag': 10, 'msg_length': 16384}"
//
// "Timestamp (s|ms|us|ns)", "Event Type", "Name" and "Process" are required; "Thread" and
// "Attributes" are optional, other columns ignored. Fields are separated by commas, blanks around
// them dropped; "..." quotes a field ("" inside is a quote).
//
// Mapping onto the Trace model: one location per (process, thread), "process P" or, with a Thread
// column, "process P thread T", in that order; Enter and Leave rows enter and leave the region of
// their name (its role from the name: MPI_Send is point-to-point); an Instant row is a marker,
// except MpiSend and MpiRecv, whose attributes (receiver or sender, communicator, msg_tag,
// msg_length) make a message, paired per (communicator, sender, receiver, tag) in row order.
// Times are truncated to the nanosecond. A row that cannot be read is skipped and counted
// (invalid_records), with its line.
#pragma once

#include <string_view>

#include "base/status.h"
#include "format/importer.h"
#include "model/trace.h"

namespace grainscope {

// `file_name` is only used in messages ("trace.csv:7: ...").
Result<Trace> ReadPipitCsv(std::string_view content, std::string_view file_name, const ReadOptions& options = {});

// True when `head` starts with a header naming a "Timestamp (unit)" and an "Event Type" column.
bool LooksLikePipitCsv(std::string_view head);

extern const Importer kCsvImporter;

}  // namespace grainscope
