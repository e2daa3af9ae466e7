// Reads the event records of every location of an OTF2 archive into flat per-location columns.
//
// The Trace wants a message's row to exist before its send and receive events are appended, but
// OTF2 gives the two ends on different locations. So this pass only records: Enter/Leave and
// markers become final events, while each point-to-point record becomes a P2pRecord and each
// collective participation a CollectiveRecord, referred to by index from the raw columns. The
// OTF2 reader then matches them (FIFO per channel, collectives by sequence) and builds the Trace.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>
#include <vector>

#include <otf2/otf2.h>

#include "base/status.h"
#include "format/otf2/otf2_definitions.h"
#include "model/trace_builder.h"
#include "model/trace_share.h"

namespace grainscope::otf2 {

inline constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

// One location's events as read. `arg` is a RegionId (Enter/Leave), a StringId (markers), an
// index into Otf2Events::p2p (send/receive kinds) or into Otf2Events::collectives.
struct RawEvents {
  std::vector<TimeNs> time;
  std::vector<EventKind> kind;
  std::vector<uint32_t> arg;

  uint32_t size() const { return static_cast<uint32_t>(time.size()); }
  void Append(TimeNs t, EventKind k, uint32_t a) {
    time.push_back(t);
    kind.push_back(k);
    arg.push_back(a);
  }
};

// One end of a point-to-point message: a send (MpiSend/MpiIsend) or a receive (MpiRecv/MpiIrecv).
struct P2pRecord {
  uint32_t location;        // LocationId value of the location that recorded it
  uint32_t event = kNone;   // its kSend/kRecv row; kNone while an Irecv has not completed
  uint32_t order = kNone;   // FIFO position: the Isend/IrecvRequest row, else the event row
  uint32_t peer = kNone;    // LocationId value of the other end
  CommunicatorId communicator;
  int32_t tag = 0;
  uint64_t bytes = 0;
  uint64_t key = 0;         // grainscope::message_key + 1; 0 when absent (plain MPI traces)
  uint64_t request = 0;     // the MPI request of a non-blocking operation
  uint32_t name_ref = OTF2_UNDEFINED_STRING;  // grainscope::message_name (an OTF2 string ref)
  RegionId grain;           // grainscope::grain; invalid otherwise
  uint32_t message = kNone; // MessageId value, assigned by matching
  uint32_t comm_ref = OTF2_UNDEFINED_COMM;
  bool is_send = false;
};

// One location's part in a collective operation (MpiCollectiveBegin .. MpiCollectiveEnd).
struct CollectiveRecord {
  uint32_t location;
  uint32_t begin_event;
  uint32_t end_event = kNone;  // kNone when the trace ends inside the operation
  CollectiveOp op = CollectiveOp::kOther;
  uint32_t comm_ref = OTF2_UNDEFINED_COMM;
  CommunicatorId communicator;
  LocationId root;
  uint64_t bytes_sent = 0;
  uint64_t bytes_received = 0;
  uint32_t instance = kNone;  // CollectiveId value, assigned by matching
  bool thread_barrier = false;  // a thread barrier's instance: its events became sync events
};

// A thread's sync event (model/thread_sync.h) the reader made of OTF2's thread records; the raw
// kSync event's arg is its index.
struct SyncRecord {
  SyncKind kind;
  uint64_t object = 0;
  uint32_t arg = 0;
};

struct Otf2Events {
  std::vector<RawEvents> locations;  // by LocationId
  std::vector<SyncRecord> syncs;
  std::vector<uint32_t> thread_barrier_events;  // by LocationId: entries and exits of thread barrier regions
  std::vector<P2pRecord> p2p;
  std::vector<CollectiveRecord> collectives;
  bool has_program_begin = false;
  TimeNs earliest_program_begin = 0;
};

// Reads every location's events. Records the model has no place for are counted in the
// builder's diagnostics ("skipped_records", "ignored_attributes"), never fatal. A location whose
// event file is missing or unreadable keeps what was read of it (nothing, for a missing file) and
// is named under "missing_location_files"; its messages stay unmatched. With `strict` (--strict)
// that, and improper nesting, is refused as before these repairs existed.
// The locations are read in up to `threads` contiguous batches of about equal event counts, one
// per task (base/parallel.h): `reader` reads the first, each other opens the archive `file` again.
// The batches are merged in location order, so `out` is the same on any number of threads.
// `share`: read only these locations' events (model/trace_share.h); the others stay empty.
Status ReadOtf2Events(OTF2_Reader* reader, const Otf2Definitions& defs, TraceBuilder& builder,
                      std::string_view file, bool strict, unsigned threads, const LocationSet& share, Otf2Events* out);

}  // namespace grainscope::otf2
