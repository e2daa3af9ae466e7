// The MPI labels libgrainscope-mpi writes into a rank's .gst stream (src/mpi/mpi_state.h), parsed.
// Since version 2.5 messages and collectives are records of their own (kRecordMpiSend and the
// like, gst_format.h) and the labels say what is defined once: rank, communicators, clocks and the
// eager limit. The message names and collective labels of 2.4 files are still read.
// Samples:
//   mpi.rank 2 4
//   mpi.comm w 0-3                      mpi.comm w.0.1 1,3
//   mpi.clock init 0 81234567890 4100 -1520    (phase, offset to rank 0 ns: 0 on the same kernel,
//                                               local monotonic ns, best round trip, measured offset)
//   mpi.coll bcast w.0.0 0 16 0                 (2.4: op, communicator, root world rank or -1, sent, received)
//   mpi.icoll allreduce w -1 8 8 2              (2.4: a non-blocking collective begins: the same, and its slot)
//   mpi.icoll_end 2                             (2.4: the non-blocking collective in slot 2 ends)
//   mpi.msg w 0 1 5                             (a message's channel: communicator, sender, receiver, tag;
//                                                the reader's name for it, 2.4's message name)
//   mpi.eager_limit 4096 btl_vader_eager_limit  (the library's eager limit in bytes, and its control variable)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace grainscope::gst {

// `mpi.rank R N [RUN]`: rank R of N; RUN (16 hex digits) is the run's id, the same in every rank
// file of one run (older files have none).
struct MpiRankLabel { int rank = 0; int size = 0; std::optional<uint64_t> run; };
struct MpiCommLabel { std::string id; std::vector<int> members; };
struct MpiClockLabel { bool finalize = false; int64_t offset_ns = 0; int64_t monotonic_ns = 0; };
// slot 0: a blocking collective (it ends with its call); else a non-blocking one, ended by the
// `mpi.icoll_end <slot>` marker that follows it on its location.
struct MpiCollLabel {
  std::string op;
  std::string comm;
  int root = -1;
  uint64_t sent = 0;
  uint64_t received = 0;
  uint32_t slot = 0;
};
struct MpiMessageName { std::string comm; int sender = -1; int receiver = -1; int32_t tag = 0; };
struct MpiEagerLimitLabel { uint64_t bytes = 0; std::string variable; };

inline constexpr std::string_view kMpiLabelPrefix = "mpi.";

std::optional<MpiRankLabel> ParseMpiRank(std::string_view label);
std::optional<MpiCommLabel> ParseMpiComm(std::string_view label);
std::optional<MpiClockLabel> ParseMpiClock(std::string_view label);
std::optional<MpiCollLabel> ParseMpiColl(std::string_view label);  // mpi.coll and mpi.icoll
std::optional<uint32_t> ParseMpiCollEnd(std::string_view label);     // the slot of mpi.icoll_end
std::optional<MpiMessageName> ParseMpiMessageName(std::string_view name);
std::optional<MpiEagerLimitLabel> ParseMpiEagerLimit(std::string_view label);

// A non-blocking collective's begin (end = false) or end in its slot, from a 2.4 label or a 2.5
// record: which of a location's non-blocking collectives end on it.
struct NonBlockingMark {
  uint32_t slot = 0;
  bool end = false;
};
// The mark an "mpi.icoll" or "mpi.icoll_end" label makes, or nullopt.
std::optional<NonBlockingMark> NonBlockingMarkOf(std::string_view label);
// The "mpi.coll ..." (slot 0) or "mpi.icoll ..." label of a collective: ParseMpiColl's inverse.
std::string MpiCollLabelText(const MpiCollLabel& coll);

// The operation names of "mpi.coll" labels ("bcast", "allreduce", ...) and the model's operations,
// both ways (gst_model_numbers.h; unknown names and "init" are kOther, which is "other").
CollectiveOp MpiCollOp(std::string_view name);
std::string_view MpiCollOpName(CollectiveOp op);

}  // namespace grainscope::gst
